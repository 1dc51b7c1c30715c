// Message keys: the msg:: constants are the catalogue's keys (a misspelled one
// does not compile: tests/message_key_misspelled.cmake proves it), and every
// key built at run time from a code (built_key) exists in both languages for
// every code it can be built from.
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include <doctest/doctest.h>

#include "attnlab/common/launch_report.hpp"
#include "attnlab/common/sandbox_status.hpp"
#include "attnlab/core/base/util.hpp"
#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/check/gpu_resources.hpp"
#include "attnlab/core/check/roofline.hpp"
#include "attnlab/core/course/kernel_cause.hpp"
#include "attnlab/core/desk/version_history.hpp"
#include "attnlab/core/desk/workspace.hpp"
#include "attnlab/core/text/messages.hpp"

using namespace attnlab;

// A call site cannot make a key out of a string: only msg:: and built_key() can.
static_assert(!std::is_constructible_v<MessageKey, const char*>);
static_assert(!std::is_constructible_v<MessageKey, std::string>);
static_assert(!std::is_convertible_v<const char*, MessageKey>);

namespace {

// Every code of an enum's code function, from its first value on, until the
// function answers its fallback ("?", or a code it gave already): a value added
// to the enum is enumerated without editing this test.
template <class Enum, class CodeOf>
std::vector<std::string> every_code(CodeOf code_of, int first = 0) {
    std::vector<std::string> codes;
    for (int i = first;; ++i) {
        const std::string code = code_of(static_cast<Enum>(i));
        if (code == "?" || code.empty() || std::find(codes.begin(), codes.end(), code) != codes.end()) return codes;
        codes.push_back(code);
    }
}

void check_in_both_languages(const std::string& key) {
    CAPTURE(key);
    CHECK(has_message(Lang::En, key));
    CHECK(has_message(Lang::Id, key));
}

void check_family(const std::string& prefix, const std::vector<std::string>& codes, size_t at_least, const std::string& suffix = "") {
    CAPTURE(prefix);
    CHECK(codes.size() >= at_least);
    for (const std::string& code : codes) check_in_both_languages(prefix + code + suffix);
}

}  // namespace

TEST_CASE("message keys: one constant per entry of the catalogue, naming it") {
    CHECK(kCataloguedKeyCount == static_cast<int>(message_keys().size()));
    CHECK(std::string(msg::verdict_pass.c_str()) == "verdict.pass");
    CHECK(std::string(msg::explain_crash_cuda_SIGSEGV.c_str()) == "explain.crash.cuda.SIGSEGV");
    CHECK(tr(Lang::En, msg::verdict_pass) == "Passed");
    CHECK(tr(Lang::Id, msg::verdict_pass) == "Lulus");
    // A built key the catalogue has is the constant's key.
    CHECK(built_key("verdict.pass") == msg::verdict_pass);
    CHECK(built_key(std::string("verdict.") + verdict_code(Verdict::Pass)) == msg::verdict_pass);
    // One it lacks shows itself, as before.
    CHECK(tr(Lang::En, built_key("no.such.key")) == "no.such.key");
    CHECK(MessageKey().empty());
    CHECK_FALSE(msg::verdict_pass.empty());
}

TEST_CASE("message keys built at run time exist in both languages for every code") {
    check_family("verdict.", every_code<Verdict>(verdict_code), 18);
    check_family("problem.", every_code<Problem>(problem_code, 1), 22);  // Problem::None has no sentence
    check_family("source.unread.", every_code<UnreadConstruct>(unread_construct_code), 3);
    check_family("perf.bound.", every_code<PerfBound>(perf_bound_code), 3);
    check_family("gpu.limit.", every_code<OccupancyLimit>(occupancy_limit_code), 5);
    check_family("gui.kview.limit.", every_code<OccupancyLimit>(occupancy_limit_code), 5);
    check_family("cli.status.", every_code<ExerciseStatus>(status_code), 3);
    check_family("history.reason.", every_code<VersionReason>(version_reason_code), 7);
    check_family("io.", every_code<FileStep>(file_step_code), 5);
    std::vector<std::string> layers;
    for (sandbox_status::Layer l : sandbox_status::kLayers) layers.push_back(sandbox_status::layer_code(l));
    check_family("doctor.layer.", layers, 7);
    const auto activities = every_code<emu::ThreadActivity>(emu::thread_activity_code);
    check_family("launch.group.", activities, 3, ".one");
    check_family("launch.group.", activities, 3, ".many");
    // A rule's sentence (report.cpp kernel_rule_text); the sectors-per-request
    // rules also word their wasted-sector variant.
    const auto rules = every_code<KernelRuleCause>(rule_cause_code, static_cast<int>(KernelRuleCause::OutputNotWritten));
    check_family("explain.kernel_rule.", rules, 8);
    for (KernelRuleCause r : {KernelRuleCause::UncoalescedLoads, KernelRuleCause::UncoalescedStores})
        check_in_both_languages(std::string("explain.kernel_rule.") + rule_cause_code(r) + ".wasted");
}
