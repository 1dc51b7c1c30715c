// `attnlab doctor [--json]`: what this machine gives attnlab. The probing is
// the core's (attnlab/core/desk/doctor.hpp); this only prints it. It needs no
// course, so it works when nothing else does.
#include <iostream>

#include "attnlab/core/check/compiler.hpp"
#include "attnlab/core/desk/doctor.hpp"
#include "attnlab/core/desk/workspace.hpp"
#include "commands.hpp"

namespace attnlab::cli {

int doctor(const std::string& lang_flag, bool json) {
    const Lang lang = resolve_language(lang_flag, Settings::load(Paths::from_environment().settings_file()));
    const DoctorReport report = run_doctor(Toolchain::detect());
    if (json) std::cout << doctor_json(report) << "\n";
    else std::cout << doctor_text(report, lang);
    return report.checks_can_run() ? kExitOk : kExitUsage;
}

}  // namespace attnlab::cli
