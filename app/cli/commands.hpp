#pragma once
// The `attnlab` command line: parsing and the commands themselves.
#include <string>
#include <vector>

namespace attnlab::cli {

// Exit codes: 0 pass / ok, 1 a check failed, 2 usage or set-up error.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;

int run(const std::vector<std::string>& args);
// `attnlab doctor [--json]` (cmd_doctor.cpp): exit 0, or 2 when checks cannot run here.
int doctor(const std::string& lang_flag, bool json);

}  // namespace attnlab::cli
