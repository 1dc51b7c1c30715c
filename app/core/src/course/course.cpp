#include "attnlab/core/course/course.hpp"
#include "attnlab/common/launch_report.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "attnlab/core/course/case_figures.hpp"
#include "attnlab/core/course/case_inputs.hpp"
#include "attnlab/core/base/util.hpp"
#include "attnlab/reference/registry.hpp"

namespace attnlab {

using nlohmann::json;

const char* lang_code(Lang lang) { return lang == Lang::Id ? "id" : "en"; }

bool parse_lang(const std::string& s, Lang& out) {
    std::string head = s.substr(0, 2);
    if (head == "en" || s == "C" || s == "POSIX") {
        out = Lang::En;
        return true;
    }
    if (head == "id") {
        out = Lang::Id;
        return true;
    }
    return false;
}

CourseError::CourseError(const fs::path& file, const std::string& field, const std::string& problem)
    : std::runtime_error(file.string() + (field.empty() ? "" : ": field '" + field + "'") + ": " + problem),
      file_(file),
      field_(field) {}

const Exercise* Course::find(const std::string& id) const {
    for (const auto& e : exercises)
        if (e.id == id) return &e;
    return nullptr;
}

std::string Course::topic_label(const std::string& topic, Lang lang) const {
    auto it = topics.find(topic);
    return it == topics.end() ? topic : it->second.get(lang);
}

namespace {

const char* cpp_param_type(ValueKind k) {
    switch (k) {
        case ValueKind::Tensor: return "const Tensor&";
        case ValueKind::Int: return "int";
        case ValueKind::Float: return "float";
    }
    return "?";
}

const char* cpp_return_type(ValueKind k) {
    switch (k) {
        case ValueKind::Tensor: return "Tensor";
        case ValueKind::Int: return "long long";
        case ValueKind::Float: return "double";
    }
    return "?";
}

std::string qualify(std::string type) {
    const std::string t = "Tensor";
    auto pos = type.find(t);
    if (pos != std::string::npos) type.replace(pos, t.size(), "attnlab::Tensor");
    return type;
}

// Reads JSON and reports problems as CourseError naming the file and field.
class JsonFile {
public:
    explicit JsonFile(fs::path path) : path_(std::move(path)) {
        auto text = read_file(path_);
        if (!text) throw CourseError(path_, "", "cannot read the file");
        try {
            root_ = json::parse(*text);
        } catch (const json::parse_error& e) {
            throw CourseError(path_, "", std::string("invalid JSON: ") + e.what());
        }
    }
    const json& root() const { return root_; }
    [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
        throw CourseError(path_, field, problem);
    }
    const json& require(const json& obj, const std::string& key, const std::string& field) const {
        if (!obj.is_object()) fail(field, "expected an object");
        auto it = obj.find(key);
        if (it == obj.end()) fail(field.empty() ? key : field + "." + key, "is missing");
        return *it;
    }
    std::string string(const json& obj, const std::string& key, const std::string& field) const {
        const json& v = require(obj, key, field);
        const std::string f = field.empty() ? key : field + "." + key;
        if (!v.is_string() || v.get_ref<const std::string&>().empty()) fail(f, "expected a non-empty string");
        return v.get<std::string>();
    }
    LocalizedText localized(const json& v, const std::string& field) const {
        LocalizedText t;
        if (v.is_string()) {
            t.en = t.id = v.get<std::string>();
            return t;
        }
        if (!v.is_object()) fail(field, "expected {\"en\": …, \"id\": …}");
        t.en = string(v, "en", field);
        t.id = string(v, "id", field);
        return t;
    }
    ValueKind kind(const json& v, const std::string& field) const {
        if (v.is_string()) {
            const std::string s = v.get<std::string>();
            if (s == "tensor") return ValueKind::Tensor;
            if (s == "int") return ValueKind::Int;
            if (s == "float") return ValueKind::Float;
        }
        fail(field, "expected one of \"tensor\", \"int\", \"float\"");
    }
    double positive(const json& obj, const std::string& key, const std::string& field, double fallback) const {
        if (!obj.contains(key)) return fallback;
        const json& v = obj[key];
        if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0) fail(field + "." + key, "expected a positive number");
        return v.get<double>();
    }
    // A positive number no larger than `ceiling` (attnlab's own, LimitCeilings).
    double positive_at_most(const json& obj, const std::string& key, const std::string& field, double fallback, double ceiling) const {
        const double v = positive(obj, key, field, fallback);
        if (v > ceiling) {
            std::ostringstream ceiling_text;
            ceiling_text << ceiling;
            fail(field + "." + key, "at most " + ceiling_text.str() + " (attnlab's ceiling for a learner program; the sandbox never allows more)");
        }
        return v;
    }
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
    json root_;
};

LocalizedText read_text_pair(const fs::path& dir, const std::string& stem) {
    LocalizedText t;
    for (Lang lang : {Lang::En, Lang::Id}) {
        const fs::path p = dir / (stem + "." + lang_code(lang) + ".md");
        auto text = read_file(p);
        if (!text) throw CourseError(p, "", "missing file (every text exists in English and Indonesian)");
        if (text->find_first_not_of(" \t\r\n") == std::string::npos) throw CourseError(p, "", "the file is empty");
        (lang == Lang::En ? t.en : t.id) = *text;
    }
    return t;
}

Value parse_value(const JsonFile& f, const json& v, ValueKind kind, const std::string& field) {
    switch (kind) {
        case ValueKind::Tensor:
            try {
                return Value::of_tensor(parse_tensor_literal(v));
            } catch (const std::invalid_argument& e) {
                f.fail(field, e.what());
            }
        case ValueKind::Int:
            if (!v.is_number_integer()) f.fail(field, "expected an integer");
            return Value::of_int(v.get<int64_t>());
        case ValueKind::Float:
            if (!v.is_number()) f.fail(field, "expected a number");
            return Value::of_float(v.get<double>());
    }
    f.fail(field, "unknown kind");
}

std::vector<Case> load_cases(const fs::path& path, const std::vector<ParamSpec>& params) {
    JsonFile f(path);
    const json& list = f.require(f.root(), "cases", "");
    if (!list.is_array() || list.empty()) f.fail("cases", "expected a non-empty array");
    std::vector<Case> cases;
    for (size_t i = 0; i < list.size(); ++i) {
        const std::string field = "cases[" + std::to_string(i) + "]";
        const json& c = list[i];
        Case out;
        out.name = f.localized(f.require(c, "name", field), field + ".name");
        const json& inputs = f.require(c, "inputs", field);
        if (!inputs.is_object()) f.fail(field + ".inputs", "expected an object of named inputs");
        for (const auto& [key, _] : inputs.items()) {
            if (std::none_of(params.begin(), params.end(), [&](const ParamSpec& p) { return p.name == key; }))
                f.fail(field + ".inputs." + key, "is not a parameter of the entry point");
        }
        for (const auto& p : params) {
            const std::string pf = field + ".inputs." + p.name;
            auto it = inputs.find(p.name);
            if (it == inputs.end()) f.fail(pf, "is missing");
            out.args.push_back(parse_value(f, *it, p.kind, pf));
        }
        if (c.contains("tokens")) {
            const json& t = c["tokens"];
            if (!t.is_array()) f.fail(field + ".tokens", "expected an array of strings");
            for (const auto& s : t) {
                if (!s.is_string()) f.fail(field + ".tokens", "expected an array of strings");
                out.tokens.push_back(s.get<std::string>());
            }
        }
        if (c.contains("checked_blocks")) {
            const json& b = c["checked_blocks"];
            if (!b.is_string() || (b != "all" && b != "first_and_last"))
                f.fail(field + ".checked_blocks", "expected \"all\" or \"first_and_last\"");
            out.sampled = b == "first_and_last";
        }
        cases.push_back(std::move(out));
    }
    return cases;
}

}  // namespace

namespace {

// The entry point's declaration; `qualified` spells namespaces out (for the
// generated header), otherwise it reads as the learner writes it.
std::string declaration(const Exercise& ex, bool qualified) {
    auto q = [&](std::string type) { return qualified ? qualify(std::move(type)) : type; };
    const bool cuda = ex.profile().entry_shape == EntryShape::FillsDeviceOutput;  // void f(DeviceTensor& out, ...)
    const std::string device_tensor = qualified ? "attnlab::DeviceTensor" : "DeviceTensor";
    std::string s = (cuda ? std::string("void") : q(cpp_return_type(ex.returns.kind))) + " " + ex.function + "(";
    if (cuda) s += device_tensor + "& " + ex.output.name;
    for (size_t i = 0; i < ex.params.size(); ++i) {
        if (i || cuda) s += ", ";
        const bool tensor = ex.params[i].kind == ValueKind::Tensor;
        s += (cuda && tensor ? "const " + device_tensor + "&" : q(cpp_param_type(ex.params[i].kind))) + " " + ex.params[i].name;
    }
    return s + ")";
}

}  // namespace

std::string Exercise::signature() const { return declaration(*this, false); }
std::string Exercise::qualified_declaration() const { return declaration(*this, true); }

namespace {

bool is_identifier(const std::string& s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

void load_topics(JsonFile& f, const json& root, const std::map<std::string, LocalizedText>& topics, Exercise& ex) {
    const json& topic_list = f.require(root, "topics", "");
    if (!topic_list.is_array()) f.fail("topics", "expected an array of topic ids");
    for (const auto& t : topic_list) {
        if (!t.is_string()) f.fail("topics", "expected an array of topic ids");
        if (!topics.count(t.get<std::string>())) f.fail("topics", "unknown topic \"" + t.get<std::string>() + "\" (declare it in manifest.json)");
        ex.topics.push_back(t.get<std::string>());
    }
}

void load_entry(JsonFile& f, const json& root, Exercise& ex) {
    const json& entry = f.require(root, "entry", "");
    ex.function = f.string(entry, "function", "entry");
    if (!is_identifier(ex.function) || ex.function == "main") f.fail("entry.function", "expected a C++ identifier other than main");
    const json& params = f.require(entry, "params", "entry");
    if (!params.is_array()) f.fail("entry.params", "expected an array");
    std::set<std::string> seen;
    for (size_t i = 0; i < params.size(); ++i) {
        const std::string field = "entry.params[" + std::to_string(i) + "]";
        ParamSpec p;
        p.name = f.string(params[i], "name", field);
        if (!is_identifier(p.name) || !seen.insert(p.name).second) f.fail(field + ".name", "expected a unique C++ identifier");
        p.kind = f.kind(f.require(params[i], "kind", field), field + ".kind");
        p.shape = params[i].value("shape", "");
        ex.params.push_back(p);
    }
    const json& ret = f.require(entry, "returns", "entry");
    ex.returns.kind = f.kind(f.require(ret, "kind", "entry.returns"), "entry.returns.kind");
    ex.returns.shape = ret.value("shape", "");
    if (ret.contains("dims")) {
        if (!ret["dims"].is_array()) f.fail("entry.returns.dims", "expected an array of axis names");
        for (const auto& d : ret["dims"]) {
            if (!d.is_string()) f.fail("entry.returns.dims", "expected an array of axis names");
            ex.returns.dims.push_back(d.get<std::string>());
        }
    }
}

// The entry point must take exactly the reference op's parameters.
void load_reference(JsonFile& f, const json& root, Exercise& ex) {
    ex.reference = f.string(root, "reference", "");
    const reference::Op* op = reference::find_op(ex.reference);
    if (!op) f.fail("reference", "no reference op named \"" + ex.reference + "\" (`attnlab dev ops` lists them)");
    if (op->params.size() != ex.params.size()) f.fail("entry.params", "the reference op \"" + op->name + "\" takes " + std::to_string(op->params.size()) + " parameters");
    for (size_t i = 0; i < op->params.size(); ++i) {
        const auto& want = op->params[i];
        auto it = std::find_if(ex.params.begin(), ex.params.end(), [&](const ParamSpec& p) { return p.name == want.name; });
        if (it == ex.params.end()) f.fail("entry.params", "the reference op \"" + op->name + "\" needs a parameter named \"" + want.name + "\"");
        if (it->kind != want.kind) f.fail("entry.params", "\"" + want.name + "\" must be of kind " + value_kind_name(want.kind));
    }
    if (op->returns != ex.returns.kind) f.fail("entry.returns.kind", std::string("the reference op returns ") + value_kind_name(op->returns));
}

// "max_shared_load_requests_per_warp_fma": {"limit": 1, "fmas": "3*T*D*D",
// "when": "T >= 256"}; the expressions are checked against the cases in
// check_case_rules.
void load_shared_loads_per_fma(JsonFile& f, const json& rule, KernelRules& r) {
    const std::string field = "kernel_rules.max_shared_load_requests_per_warp_fma";
    if (!rule.is_object()) f.fail(field, "expected {\"limit\": …, \"fmas\": …, \"when\": …}");
    for (const auto& [key, value] : rule.items())
        if (key != "limit" && key != "fmas" && key != "when") f.fail(field + "." + key, "unknown key (limit, fmas, when)");
    KernelRules::SharedLoadsPerFma& s = r.max_shared_load_requests_per_warp_fma;
    s.limit = f.positive(rule, "limit", field, 0);
    if (s.limit == 0) f.fail(field + ".limit", "is missing");
    s.fmas = f.string(rule, "fmas", field);
    if (rule.contains("when")) s.when = f.string(rule, "when", field);
}

// "kernel_rules": the structural rules of a CUDA exercise (course.hpp, KernelRules).
void load_kernel_rules(JsonFile& f, const json& rules, KernelRules& r) {
    static const std::vector<std::string> keys = {
        "max_sectors_per_load_request", "max_sectors_per_store_request", "max_wasted_sector_ratio", "max_shared_bytes_per_block",
        "inputs_loaded_once_per_block", "max_global_read_ratio",        "blocks_per_launch",       "min_bytes_per_load_request",
        "min_bytes_per_store_request",  "min_bytes_per_request_when",   "min_tensor_flop_ratio",
        "max_shared_load_requests_per_warp_fma"};
    if (!rules.is_object()) f.fail("kernel_rules", "expected an object");
    for (const auto& [key, value] : rules.items())
        if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
            std::string known;
            for (const std::string& k : keys) known += (known.empty() ? "" : ", ") + k;
            f.fail("kernel_rules." + key, "unknown rule (" + known + ")");
        }
    r.max_sectors_per_load_request = f.positive(rules, "max_sectors_per_load_request", "kernel_rules", 0);
    r.max_sectors_per_store_request = f.positive(rules, "max_sectors_per_store_request", "kernel_rules", 0);
    r.max_wasted_sector_ratio = f.positive(rules, "max_wasted_sector_ratio", "kernel_rules", 0);
    r.max_shared_bytes_per_block = f.positive(rules, "max_shared_bytes_per_block", "kernel_rules", 0);
    r.max_global_read_ratio = f.positive(rules, "max_global_read_ratio", "kernel_rules", 0);
    r.min_bytes_per_load_request = f.positive(rules, "min_bytes_per_load_request", "kernel_rules", 0);
    r.min_bytes_per_store_request = f.positive(rules, "min_bytes_per_store_request", "kernel_rules", 0);
    r.min_tensor_flop_ratio = f.positive(rules, "min_tensor_flop_ratio", "kernel_rules", 0);
    if (rules.contains("blocks_per_launch")) r.blocks_per_launch = f.string(rules, "blocks_per_launch", "kernel_rules");
    if (rules.contains("min_bytes_per_request_when")) {
        r.min_bytes_per_request_when = f.string(rules, "min_bytes_per_request_when", "kernel_rules");
        if (r.min_bytes_per_load_request == 0 && r.min_bytes_per_store_request == 0)
            f.fail("kernel_rules.min_bytes_per_request_when", "applies to no rule: set min_bytes_per_load_request or min_bytes_per_store_request");
    }
    if (rules.contains("inputs_loaded_once_per_block")) {
        if (!rules["inputs_loaded_once_per_block"].is_boolean()) f.fail("kernel_rules.inputs_loaded_once_per_block", "expected true or false");
        r.inputs_loaded_once_per_block = rules["inputs_loaded_once_per_block"].get<bool>();
    }
    if (rules.contains("max_shared_load_requests_per_warp_fma")) load_shared_loads_per_fma(f, rules["max_shared_load_requests_per_warp_fma"], r);
}

// "runtime": "cpp" (default) or "cuda"; a CUDA exercise names the device
// tensor its launcher fills ("entry.output") and may set kernel rules.
void load_runtime(JsonFile& f, const json& root, Exercise& ex) {
    const std::string runtime = root.contains("runtime") ? f.string(root, "runtime", "") : "cpp";
    const RuntimeProfile* profile = profile_by_code(runtime);
    if (!profile) {
        std::string codes;
        for (const RuntimeProfile* p : all_runtime_profiles()) codes += std::string(codes.empty() ? "" : " or ") + "\"" + p->code + "\"";
        f.fail("runtime", "expected " + codes);
    }
    ex.runtime = profile->runtime;
    if (profile->entry_shape != EntryShape::FillsDeviceOutput) return;
    const json& out = f.require(f.require(root, "entry", ""), "output", "entry");
    ex.output.name = f.string(out, "name", "entry.output");
    ex.output.shape = out.value("shape", "");
    if (!is_identifier(ex.output.name) || std::any_of(ex.params.begin(), ex.params.end(), [&](const ParamSpec& p) { return p.name == ex.output.name; }))
        f.fail("entry.output.name", "expected a C++ identifier that is not one of the parameters");
    if (ex.returns.kind != ValueKind::Tensor) f.fail("entry.returns.kind", "a CUDA exercise returns a tensor (its output)");
    if (root.contains("kernel_rules")) load_kernel_rules(f, root["kernel_rules"], ex.kernel_rules);
}

// "case_names": {"H": "n_heads"}. Each must be a name no parameter binds and
// evaluate in every case, over the parameters' names.
void load_derived_case_names(JsonFile& f, const json& root, Exercise& ex) {
    if (!root.contains("case_names")) return;
    const json& names = root["case_names"];
    if (!names.is_object()) f.fail("case_names", "expected an object: name -> expression over the case's names");
    for (const auto& [name, expr] : names.items()) {
        if (!is_identifier(name)) f.fail("case_names", "\"" + name + "\" is not a name");
        ex.derived_case_names[name] = f.string(names, name, "case_names");
    }
    const std::vector<CaseNames> bound = case_names(ex.params, ex.cases);
    for (size_t i = 0; i < bound.size(); ++i)
        for (const auto& [name, expr] : ex.derived_case_names) {
            if (bound[i].count(name)) f.fail("case_names." + name, "is already bound by a parameter's shape or name");
            try {
                evaluate_case_expression(expr, bound[i]);
            } catch (const CaseFigureError& e) {
                f.fail("case_names." + name, std::string(e.what()) + " (case " + std::to_string(i + 1) + ")");
            }
        }
}

// A rule that depends on the case must mean something in every case: a
// broken expression is the course's problem, found when it loads. The FMA
// count is evaluated only where its condition holds (a division by a name
// that is 0 in a small case would be no error there).
void check_shared_loads_rule(JsonFile& f, const KernelRules::SharedLoadsPerFma& rule, const std::vector<CaseNames>& cases) {
    if (rule.limit == 0) return;
    const std::string field = "kernel_rules.max_shared_load_requests_per_warp_fma.";
    bool any_case_judged = false;
    for (size_t i = 0; i < cases.size(); ++i) {
        const std::string in_case = " (case " + std::to_string(i + 1) + ")";
        try {
            if (!rule.when.empty() && evaluate_case_expression(rule.when, cases[i]) == 0) continue;
        } catch (const CaseFigureError& e) {
            f.fail(field + "when", e.what() + in_case);
        }
        any_case_judged = true;
        try {
            if (evaluate_case_expression(rule.fmas, cases[i]) < 1) f.fail(field + "fmas", "is less than 1 multiply-add in case " + std::to_string(i + 1));
        } catch (const CaseFigureError& e) {
            f.fail(field + "fmas", e.what() + in_case);
        }
    }
    if (!any_case_judged) f.fail(field + "when", "holds in no case");  // a rule no case judges checks nothing
}

void check_case_rules(JsonFile& f, const Exercise& ex) {
    const KernelRules& r = ex.kernel_rules;
    if (r.blocks_per_launch.empty() && r.min_bytes_per_request_when.empty() && r.max_shared_load_requests_per_warp_fma.limit == 0) return;
    const std::vector<CaseNames> cases = case_names(ex);
    check_shared_loads_rule(f, r.max_shared_load_requests_per_warp_fma, cases);
    bool any_case_judged = false;
    for (size_t i = 0; i < cases.size(); ++i) {
        const std::string in_case = " (case " + std::to_string(i + 1) + ")";
        try {
            if (!r.blocks_per_launch.empty() && evaluate_case_expression(r.blocks_per_launch, cases[i]) < 1)
                f.fail("kernel_rules.blocks_per_launch", "is less than 1 block in case " + std::to_string(i + 1));
        } catch (const CaseFigureError& e) {
            f.fail("kernel_rules.blocks_per_launch", e.what() + in_case);
        }
        try {
            if (!r.min_bytes_per_request_when.empty() && evaluate_case_expression(r.min_bytes_per_request_when, cases[i]) != 0)
                any_case_judged = true;
        } catch (const CaseFigureError& e) {
            f.fail("kernel_rules.min_bytes_per_request_when", e.what() + in_case);
        }
    }
    if (!r.min_bytes_per_request_when.empty() && !any_case_judged)  // a rule no case judges checks nothing
        f.fail("kernel_rules.min_bytes_per_request_when", "holds in no case");
}

void load_tolerance_and_limits(JsonFile& f, const json& root, Exercise& ex) {
    if (root.contains("tolerance")) {
        const json& t = root["tolerance"];
        if (!t.is_object()) f.fail("tolerance", "expected {\"atol\": …, \"rtol\": …}");
        auto non_negative = [&](const char* key, double fallback) {
            if (!t.contains(key)) return fallback;
            if (!t[key].is_number() || t[key].get<double>() < 0) f.fail(std::string("tolerance.") + key, "expected a number ≥ 0");
            return t[key].get<double>();
        };
        ex.tolerance.atol = non_negative("atol", ex.tolerance.atol);
        ex.tolerance.rtol = non_negative("rtol", ex.tolerance.rtol);
        if (t.contains("why")) ex.tolerance.why = f.string(t, "why", "tolerance");
    }
    if (root.contains("limits")) {
        const json& l = root["limits"];
        if (!l.is_object()) f.fail("limits", "expected an object");
        using C = LimitCeilings;
        ex.limits.cpu_seconds = f.positive_at_most(l, "cpu_seconds", "limits", ex.limits.cpu_seconds, C::cpu_seconds);
        ex.limits.wall_seconds = f.positive_at_most(l, "wall_seconds", "limits", ex.limits.wall_seconds, C::wall_seconds);
        ex.limits.memory_mb =
            static_cast<long>(f.positive_at_most(l, "memory_mb", "limits", static_cast<double>(ex.limits.memory_mb), C::memory_mb));
        ex.limits.output_kb =
            static_cast<long>(f.positive_at_most(l, "output_kb", "limits", static_cast<double>(ex.limits.output_kb), C::output_kb));
    }
}

// "mistakes": ids of the reference op's catalogued variants; the learner's
// words for each are in the course's catalogue, <course>/mistakes/<id>.json.
void load_mistakes(JsonFile& f, const json& root, Exercise& ex) {
    if (!root.contains("mistakes")) return;
    const json& list = root["mistakes"];
    if (!list.is_array()) f.fail("mistakes", "expected an array of mistake ids");
    for (size_t i = 0; i < list.size(); ++i) {
        const std::string field = "mistakes[" + std::to_string(i) + "]";
        if (!list[i].is_string()) f.fail(field, "expected a mistake id");
        MistakeSpec m;
        m.id = list[i].get<std::string>();
        if (!is_identifier(m.id)) f.fail(field, "\"" + m.id + "\" is not a mistake id (letters, digits, _)");
        if (!reference::find_mistake(ex.reference, m.id))
            f.fail(field, "the reference op \"" + ex.reference + "\" has no mistake \"" + m.id + "\" (`attnlab dev ops` lists them)");
        JsonFile words(ex.dir.parent_path() / "mistakes" / (m.id + ".json"));
        m.title = words.localized(words.require(words.root(), "title", ""), "title");
        m.message = words.localized(words.require(words.root(), "message", ""), "message");
        ex.mistakes.push_back(std::move(m));
    }
}

bool is_verdict_code(const std::string& s) {
    static const char* const codes[] = {"pass", "wrong_answer", "wrong_shape", "non_finite", "compile_error", "missing_entry",
                                        "runtime_error", "crash", "timeout", "memory_limit", "output_limit", "modified_input",
                                        "kernel_fault", "kernel_rule"};
    return std::find(std::begin(codes), std::end(codes), s) != std::end(codes);
}

// An emulator fault code or a kernel rule's cause (CUDA fixtures name these).
bool is_kernel_cause(const std::string& s) { return kernel_cause_from_code(s).has_value(); }

// "fixtures": solutions kept with the exercise and what a check must say of them.
void load_fixtures(JsonFile& f, const json& root, Exercise& ex) {
    if (!root.contains("fixtures")) return;
    const json& list = root["fixtures"];
    if (!list.is_array()) f.fail("fixtures", "expected an array of {\"file\": …, \"expect\": …}");
    for (size_t i = 0; i < list.size(); ++i) {
        const std::string field = "fixtures[" + std::to_string(i) + "]";
        Fixture fx;
        fx.file = f.string(list[i], "file", field);
        fx.expect = f.string(list[i], "expect", field);
        if (fx.file.is_absolute() || fx.file.lexically_normal().string().rfind("..", 0) == 0)
            f.fail(field + ".file", "expected a path inside the exercise folder");
        if (!fs::is_regular_file(ex.dir / fx.file)) f.fail(field + ".file", "no file " + fx.file.string());
        const bool names_mistake = std::any_of(ex.mistakes.begin(), ex.mistakes.end(), [&](const MistakeSpec& m) { return m.id == fx.expect; });
        const bool kernels = ex.profile().reports_kernel_launches;
        const bool names_kernel_cause = kernels && is_kernel_cause(fx.expect);
        if (!names_mistake && !names_kernel_cause && !is_verdict_code(fx.expect))
            f.fail(field + ".expect", "\"" + fx.expect + "\" is neither a verdict code, nor one of this exercise's mistakes" +
                                          (kernels ? ", nor a kernel fault or rule (shared_race, output_not_written, …)" : ""));
        ex.fixtures.push_back(std::move(fx));
    }
}

// A text pair with its {{…}} case figures filled from the exercise's cases
// (case_figures.hpp): the CLI and the window show the same true figures.
LocalizedText read_texts_with_figures(const fs::path& dir, const std::string& stem, const std::vector<CaseNames>& cases) {
    LocalizedText t = read_text_pair(dir, stem);
    for (auto [text, lang] : {std::pair<std::string*, const char*>{&t.en, "en"}, {&t.id, "id"}}) {
        try {
            *text = expand_case_figures(*text, cases);
        } catch (const CaseFigureError& e) {
            throw CourseError(dir / (stem + "." + lang + ".md"), "", e.what());
        }
    }
    return t;
}

void load_texts(const fs::path& dir, Exercise& ex) {
    const std::vector<CaseNames> cases = case_names(ex);
    ex.statement = read_texts_with_figures(dir, "statement", cases);
    ex.explanation = read_texts_with_figures(dir, "explanation", cases);
    for (int n = 1;; ++n) {
        const std::string stem = "hint-" + std::to_string(n);
        if (!fs::exists(dir / (stem + ".en.md")) && !fs::exists(dir / (stem + ".id.md"))) break;
        ex.hints.push_back(read_texts_with_figures(dir, stem, cases));
    }
    if (ex.hints.size() < 3) throw CourseError(dir / "hint-1.en.md", "", "an exercise needs at least 3 hints (hint-1 … hint-3, in .en.md and .id.md), found " + std::to_string(ex.hints.size()));
    for (const fs::path& file : {ex.starter_path(), ex.solution_path()})
        if (!fs::is_regular_file(file)) throw CourseError(file, "", "missing file");
}

}  // namespace

namespace {

// "rule_advice": {"<cause code>": {"en": …, "id": …}}, for the rules whose
// explanation takes advice (kernel_cause.hpp: rule_takes_advice).
void load_rule_advice(const JsonFile& f, const json& root, Exercise& ex) {
    if (!root.contains("rule_advice")) return;
    const json& advice = root["rule_advice"];
    if (!advice.is_object()) f.fail("rule_advice", "expected an object: a kernel rule's cause code -> {\"en\": …, \"id\": …}");
    std::string takes;
    for (int r = 0; r <= static_cast<int>(kLastKernelRuleCause); ++r)
        if (rule_takes_advice(static_cast<KernelRuleCause>(r))) takes += (takes.empty() ? "" : ", ") + std::string(rule_cause_code(static_cast<KernelRuleCause>(r)));
    for (const auto& [code, text] : advice.items()) {
        const std::optional<KernelCause> cause = kernel_cause_from_code(code);
        if (!cause || cause->fault != emu::FaultKind::None || !rule_takes_advice(cause->rule))
            f.fail("rule_advice." + code, "no kernel rule takes advice under this name (these do: " + takes + ")");
        ex.rule_advice[code] = f.localized(text, "rule_advice." + code);
    }
}

}  // namespace

Exercise load_exercise(const fs::path& dir, const std::map<std::string, LocalizedText>& topics) {
    JsonFile f(dir / "exercise.json");
    const json& root = f.root();
    Exercise ex;
    ex.dir = dir;
    ex.id = f.string(root, "id", "");
    if (ex.id != dir.filename().string()) f.fail("id", "\"" + ex.id + "\" must equal the folder name \"" + dir.filename().string() + "\"");
    ex.title = f.localized(f.require(root, "title", ""), "title");
    if (root.contains("non_finite_hint")) ex.non_finite_hint = f.localized(root["non_finite_hint"], "non_finite_hint");
    load_rule_advice(f, root, ex);
    load_topics(f, root, topics, ex);
    load_entry(f, root, ex);
    load_reference(f, root, ex);
    load_runtime(f, root, ex);
    load_tolerance_and_limits(f, root, ex);
    load_mistakes(f, root, ex);
    load_fixtures(f, root, ex);
    ex.cases = load_cases(dir / "cases.json", ex.params);
    load_derived_case_names(f, root, ex);
    check_case_rules(f, ex);
    load_texts(dir, ex);
    return ex;
}

namespace {

// "format_version": the course format the manifest is written in. Before it
// had a meaning it was spelled "version" (always 1), still read for one
// release so that a course written then keeps loading.
int read_format_version(const JsonFile& f, const json& root) {
    if (!root.is_object()) f.fail("", "expected an object with format_version, topics and exercises");
    const char* key = root.contains("format_version") ? "format_version" : root.contains("version") ? "version" : nullptr;
    const std::string supported = "this build reads up to " + std::to_string(kCourseFormatVersion);
    if (!key) f.fail("format_version", "is missing: the course format the manifest is written in (" + supported + ")");
    const json& v = root[key];
    if (!v.is_number_integer() || v.get<int64_t>() < 1) f.fail(key, "expected a positive integer (the course format; " + supported + ")");
    if (v.get<int64_t>() > kCourseFormatVersion)
        f.fail(key, "this course needs a newer attnlab: format " + std::to_string(v.get<int64_t>()) + ", " + supported);
    return static_cast<int>(v.get<int64_t>());
}

}  // namespace

Course load_course(const fs::path& dir) {
    Course course;
    course.dir = dir;
    JsonFile f(dir / "manifest.json");
    const json& root = f.root();
    course.format_version = read_format_version(f, root);
    if (root.contains("topics")) {
        const json& t = root["topics"];
        if (!t.is_object()) f.fail("topics", "expected an object of topic id → {en, id}");
        for (const auto& [key, value] : t.items()) course.topics[key] = f.localized(value, "topics." + key);
    }
    const json& list = f.require(root, "exercises", "");
    if (!list.is_array()) f.fail("exercises", "expected an array of exercise folder names");
    std::set<std::string> seen;
    for (size_t i = 0; i < list.size(); ++i) {
        const std::string field = "exercises[" + std::to_string(i) + "]";
        if (!list[i].is_string()) f.fail(field, "expected a folder name");
        const std::string id = list[i].get<std::string>();
        if (id.empty() || id.find('/') != std::string::npos || id[0] == '.') f.fail(field, "\"" + id + "\" is not a folder name");
        if (!seen.insert(id).second) f.fail(field, "\"" + id + "\" is listed twice");
        try {
            if (!fs::is_directory(dir / id)) throw CourseError(dir / id, "", "the folder listed in manifest.json does not exist");
            course.exercises.push_back(load_exercise(dir / id, course.topics));
        } catch (const CourseError& e) {
            course.problems.push_back(e.what());
            course.broken[id] = e.what();
        }
    }
    return course;
}

}  // namespace attnlab
