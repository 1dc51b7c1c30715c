#include "attnlab/core/text/protection_words.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>

#include "attnlab/core/base/data_paths.hpp"
#include "attnlab/core/text/messages.hpp"

namespace attnlab {

using sandbox_status::Layer;
using sandbox_status::LayerState;
using sandbox_status::Protections;

namespace {

// "EPERM (Operation not permitted)": what the kernel answered, by name.
std::string error_name(int error) {
    const char* name = strerrorname_np(error);
    return std::string(name ? name : std::to_string(error).c_str()) + " (" + std::strerror(error) + ")";
}

MessageKey reason_key(int error) {
    switch (error) {
        case EPERM:
        case EACCES: return msg::doctor_reason_not_permitted;
        case ENOSYS:
        case EINVAL:
        case EOPNOTSUPP: return msg::doctor_reason_unsupported;
        case ENOSPC:
        case EUSERS:
        case EAGAIN:
        case ENOMEM: return msg::doctor_reason_limit;
        default: return msg::doctor_reason_other;
    }
}

// The error a refused namespace layer reported (0: none was refused).
int namespace_error(const Protections& p) {
    for (Layer l : {Layer::PidNamespace, Layer::MountNamespace, Layer::NetworkNamespace, Layer::IpcNamespace, Layer::UtsNamespace})
        if (p[l].state == LayerState::Refused && p[l].error != 0) return p[l].error;
    return 0;
}

std::optional<long> read_sysctl(const char* path) {
    std::ifstream in(path);
    long v = 0;
    if (in >> v) return v;
    return std::nullopt;
}

// What was seen, then the advice that fits it: a sysctl only where it is off.
void add_namespace_advice(int error, const NamespaceSettings& s, Lang lang, const std::function<void(const std::string&)>& add) {
    add(tr(lang, msg::isolation_fix_observed, {{"error", error_name(error)}}));
    if (s.root) {
        add(tr(lang, msg::isolation_fix_root));
    } else {
        if (s.unprivileged_userns_clone && *s.unprivileged_userns_clone == 0) add(tr(lang, msg::isolation_fix_userns_clone));
        if (s.max_user_namespaces && *s.max_user_namespaces == 0) add(tr(lang, msg::isolation_fix_max_user_namespaces));
        if (s.apparmor_restrict_unprivileged_userns && *s.apparmor_restrict_unprivileged_userns != 0) add(tr(lang, msg::isolation_fix_apparmor));
    }
    add(tr(lang, msg::isolation_fix_container));
}

}  // namespace

std::string layer_state_text(Layer l, const sandbox_status::LayerReport& s, Lang lang) {
    switch (s.state) {
        case LayerState::Applied: return tr(lang, msg::doctor_layer_on);
        case LayerState::NotAsked: return tr(lang, msg::doctor_layer_not_asked);
        case LayerState::DisabledByUser: return tr(lang, msg::doctor_layer_disabled, {{"switch", sandbox_status::layer_env_switch(l)}});
        case LayerState::Refused:
            if (s.error == 0) return tr(lang, msg::doctor_layer_not_tried);  // the run stopped before it
            return tr(lang, msg::doctor_layer_refused, {{"reason", tr(lang, reason_key(s.error), {{"code", std::to_string(s.error)}})}});
    }
    return "";
}

std::string layer_name(Layer l, Lang lang) { return tr(lang, built_key(std::string("doctor.layer.") + sandbox_status::layer_code(l))); }

std::string missing_layers(const Protections& p, Lang lang) {
    std::string text;
    for (Layer l : sandbox_status::kLayers) {
        const auto& s = p[l];
        if (s.state != LayerState::DisabledByUser && (s.state != LayerState::Refused || s.error == 0)) continue;
        text += (text.empty() ? "" : "; ") + layer_name(l, lang) + " — " + layer_state_text(l, s, lang);
    }
    return text;
}

std::string protections_summary(const Protections& p, Lang lang) {
    const std::string missing = missing_layers(p, lang);
    return missing.empty() ? tr(lang, msg::doctor_protections_all_on) : tr(lang, msg::doctor_protections_some_off, {{"layers", missing}});
}

std::string protections_notice(const Protections& p, Lang lang) {
    if (p.complete()) return "";
    return tr(lang, msg::doctor_protections_notice,
              {{"layers", missing_layers(p, lang)}, {"env", sandbox_status::kWeakSandboxEnv}, {"setting", sandbox_status::kWeakSandboxSetting}});
}

std::string protections_notice_once(const Protections& p, Lang lang) { return protections_notice(p, lang); }

NamespaceSettings NamespaceSettings::read() {
    NamespaceSettings s;
    s.root = ::getuid() == 0;
    s.unprivileged_userns_clone = read_sysctl("/proc/sys/kernel/unprivileged_userns_clone");
    s.max_user_namespaces = read_sysctl("/proc/sys/user/max_user_namespaces");
    s.apparmor_restrict_unprivileged_userns = read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
    return s;
}

std::string isolation_refusal_text(const Protections& p, Lang lang, const NamespaceSettings& settings) {
    std::string fixes;
    auto add = [&](const std::string& text) { fixes += (fixes.empty() ? "" : " ") + text; };
    if (const int error = namespace_error(p)) add_namespace_advice(error, settings, lang, add);
    if (p[Layer::Seccomp].state == LayerState::Refused && p[Layer::Seccomp].error != 0) add(tr(lang, msg::isolation_fix_seccomp));
    if (p[Layer::Identity].state == LayerState::Refused && p[Layer::Identity].error != 0) add(tr(lang, msg::isolation_fix_identity));
    for (Layer l : sandbox_status::kLayers)
        if (p[l].state == LayerState::DisabledByUser) add(tr(lang, msg::isolation_fix_switch, {{"switch", sandbox_status::layer_env_switch(l)}}));
    const std::string missing = missing_layers(p, lang);
    return tr(lang, msg::isolation_refused,
              {{"layers", missing.empty() ? tr(lang, msg::isolation_unknown_layer) : missing},
               {"fixes", fixes},
               {"env", sandbox_status::kWeakSandboxEnv},
               {"setting", sandbox_status::kWeakSandboxSetting},
               {"file", Paths::from_environment().settings_file().string()}});
}

}  // namespace attnlab
