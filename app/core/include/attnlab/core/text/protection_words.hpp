#pragma once
// The sandbox's protections in words, English or Bahasa Indonesia: each
// layer's state, the ones missing, the notice a verdict carries when its
// program ran with some off, and why a check that could not isolate its
// program stopped. `attnlab doctor`, the report and the windows all say it
// this way.
#include <optional>
#include <string>

#include "attnlab/common/sandbox_status.hpp"
#include "attnlab/core/course/course.hpp"  // Lang

namespace attnlab {

// A layer's name ("private files", ...) and its state ("on", "refused: not permitted (1)", ...).
std::string layer_name(sandbox_status::Layer l, Lang lang);
std::string layer_state_text(sandbox_status::Layer l, const sandbox_status::LayerReport& s, Lang lang);
// The layers that were wanted but are off, as "name — why" joined by "; ".
std::string missing_layers(const sandbox_status::Protections& p, Lang lang);

// What learner programs run under here, in one line ("all protections on" or
// which are off and why).
std::string protections_summary(const sandbox_status::Protections& p, Lang lang);
// The notice every verdict carries when its program ran with a protection
// off (which the user's opt-in allowed): "" when all asked-for layers were applied.
std::string protections_notice(const sandbox_status::Protections& p, Lang lang);
// The same notice; the name is older than the rule that every verdict says it.
std::string protections_notice_once(const sandbox_status::Protections& p, Lang lang);
// The kernel settings that decide whether an ordinary user may create user
// namespaces, as read from /proc/sys now (nullopt: not present on this kernel).
struct NamespaceSettings {
    bool root = false;                                          // attnlab runs as root
    std::optional<long> unprivileged_userns_clone;              // kernel.unprivileged_userns_clone (Debian): 0 = off
    std::optional<long> max_user_namespaces;                    // user.max_user_namespaces: 0 = off
    std::optional<long> apparmor_restrict_unprivileged_userns;  // kernel.apparmor_restrict_unprivileged_userns (Ubuntu): 1 = restricted
    static NamespaceSettings read();
};

// Why a check stopped before running anything (fail closed): which layers
// are missing and why, what was observed (the error creating the namespaces),
// sysctl advice only for a setting that really is off, container options, and
// the opt-in that runs without them.
std::string isolation_refusal_text(const sandbox_status::Protections& p, Lang lang,
                                   const NamespaceSettings& settings = NamespaceSettings::read());

}  // namespace attnlab
