#include "attnlab/core/text/protection_words.hpp"

#include <unistd.h>

#include <cerrno>

#include "attnlab/core/base/data_paths.hpp"
#include "attnlab/core/text/messages.hpp"

namespace attnlab {

using sandbox_status::Layer;
using sandbox_status::LayerState;
using sandbox_status::Protections;

namespace {

std::string reason_key(int error) {
    switch (error) {
        case EPERM:
        case EACCES: return "doctor.reason.not_permitted";
        case ENOSYS:
        case EINVAL:
        case EOPNOTSUPP: return "doctor.reason.unsupported";
        case ENOSPC:
        case EUSERS:
        case EAGAIN:
        case ENOMEM: return "doctor.reason.limit";
        default: return "doctor.reason.other";
    }
}

bool namespace_refused(const Protections& p) {
    for (Layer l : {Layer::PidNamespace, Layer::MountNamespace, Layer::NetworkNamespace, Layer::IpcNamespace, Layer::UtsNamespace})
        if (p[l].state == LayerState::Refused && p[l].error != 0) return true;
    return false;
}

}  // namespace

std::string layer_state_text(Layer l, const sandbox_status::LayerReport& s, Lang lang) {
    switch (s.state) {
        case LayerState::Applied: return tr(lang, "doctor.layer.on");
        case LayerState::NotAsked: return tr(lang, "doctor.layer.not_asked");
        case LayerState::DisabledByUser: return tr(lang, "doctor.layer.disabled", {{"switch", sandbox_status::layer_env_switch(l)}});
        case LayerState::Refused:
            if (s.error == 0) return tr(lang, "doctor.layer.not_tried");  // the run stopped before it
            return tr(lang, "doctor.layer.refused", {{"reason", tr(lang, reason_key(s.error), {{"code", std::to_string(s.error)}})}});
    }
    return "";
}

std::string layer_name(Layer l, Lang lang) { return tr(lang, std::string("doctor.layer.") + sandbox_status::layer_code(l)); }

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
    return missing.empty() ? tr(lang, "doctor.protections.all_on") : tr(lang, "doctor.protections.some_off", {{"layers", missing}});
}

std::string protections_notice(const Protections& p, Lang lang) {
    if (p.complete()) return "";
    return tr(lang, "doctor.protections.notice",
              {{"layers", missing_layers(p, lang)}, {"env", sandbox_status::kWeakSandboxEnv}, {"setting", sandbox_status::kWeakSandboxSetting}});
}

std::string protections_notice_once(const Protections& p, Lang lang) { return protections_notice(p, lang); }

std::string isolation_refusal_text(const Protections& p, Lang lang) {
    std::string fixes;
    auto add = [&](const std::string& text) { fixes += (fixes.empty() ? "" : " ") + text; };
    if (namespace_refused(p)) {
        add(tr(lang, ::getuid() == 0 ? "isolation.fix.root" : "isolation.fix.userns"));
        add(tr(lang, "isolation.fix.container"));
    }
    if (p[Layer::Seccomp].state == LayerState::Refused && p[Layer::Seccomp].error != 0) add(tr(lang, "isolation.fix.seccomp"));
    if (p[Layer::Identity].state == LayerState::Refused && p[Layer::Identity].error != 0) add(tr(lang, "isolation.fix.identity"));
    for (Layer l : sandbox_status::kLayers)
        if (p[l].state == LayerState::DisabledByUser) add(tr(lang, "isolation.fix.switch", {{"switch", sandbox_status::layer_env_switch(l)}}));
    const std::string missing = missing_layers(p, lang);
    return tr(lang, "isolation.refused",
              {{"layers", missing.empty() ? tr(lang, "isolation.unknown_layer") : missing},
               {"fixes", fixes},
               {"env", sandbox_status::kWeakSandboxEnv},
               {"setting", sandbox_status::kWeakSandboxSetting},
               {"file", Paths::from_environment().settings_file().string()}});
}

}  // namespace attnlab
