#pragma once
// An emulated launch in words, English or Bahasa Indonesia, from the keyed
// messages (messages.cpp, "launch.*"). The emulator reports codes and
// numbers only (common/launch_report.hpp); every sentence about them is here.
#include <string>

#include "attnlab/common/launch_report.hpp"
#include "attnlab/core/course/course.hpp"  // Lang

namespace attnlab {

// A fault or rule code ("shared_race", "out_of_bounds", "uncoalesced_loads")
// in words of the learner's language; an unknown code is returned as it is.
std::string fault_name(const std::string& code, Lang lang);
// One paragraph naming the tool, block, thread, line, buffer, index and size.
// "" when there is no fault.
std::string describe_fault(const emu::Fault& fault, Lang lang);
// Several lines: the counters with their meaning (sectors/request, conflicts...).
std::string describe_counters(const emu::LaunchCounters& counters, Lang lang);
// Kernel name, launch shape, the fault (if any), then the counters.
std::string describe_launch(const emu::LaunchReport& report, Lang lang);
// How one of attnlab's own kernels maps blocks and threads to data, in
// `lang` ("" for a kernel attnlab does not have).
std::string kernel_layout_text(const std::string& kernel, Lang lang);

}  // namespace attnlab
