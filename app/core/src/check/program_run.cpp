#include <unistd.h>

#include <atomic>
#include <chrono>

#include "attnlab/common/protocol.hpp"
#include "attnlab/core/base/util.hpp"
#include "check_steps.hpp"

namespace attnlab {

namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point t0) {
    return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

// A learner program under its limits, on its target, with a result channel.
ProcessSpec sandbox_spec(const Toolchain& toolchain, const fs::path& binary, const fs::path& run_dir, const fs::path& cases_file,
                         const Limits& limits, ExecutionTarget target, const fs::path& course) {
    ProcessSpec spec;
    spec.sandbox = toolchain.sandbox.string();
    spec.policy = learner_policy(target, course);
    spec.policy.allow_missing_layers = toolchain.weak_sandbox_allowed;
    spec.argv = {binary.string(), cases_file.string()};
    spec.cwd = run_dir.string();
    spec.with_channel = true;
    spec.limits = limits;
    spec.capture_bytes = 64 * 1024;
    return spec;
}

// What the learner's program receives for one case: the case's arguments; a
// launcher that fills a device output first gets the expected output's shape
// (its `out` tensor is allocated with it, unwritten; the values sent are not used).
protocol::CaseArgs program_args(const Exercise& ex, const Case& c, const CaseOutcome& outcome) {
    protocol::CaseArgs args;
    if (ex.profile().entry_shape == EntryShape::FillsDeviceOutput) {
        const TensorData& expected = outcome.expected.tensor;
        args.push_back(Value::of_tensor(TensorData(expected.shape, std::vector<float>(expected.data.size(), 0.0f))));
    }
    args.insert(args.end(), c.args.begin(), c.args.end());
    return args;
}

}  // namespace

ProgramRun run_program(const Compiler& compiler, const Exercise& ex, const fs::path& binary, const std::vector<CaseOutcome>& cases,
                       ExecutionTarget target, const std::vector<std::string>& extra_args, ResultChannel& channel,
                       const std::atomic<bool>* cancel) {
    const auto t0 = clock_type::now();
    ProgramRun run;
    static std::atomic<uint64_t> runs_started{0};  // two programs of one check start in the same instant
    const fs::path run_dir = compiler.cache_dir() / "tmp" /
                             ("run-" + std::to_string(::getpid()) + "-" + std::to_string(runs_started++) + "-" +
                              hex64(hash64(std::to_string(t0.time_since_epoch().count()) + ex.id)));
    const fs::path cases_file = run_dir / "cases.bin";
    std::error_code ec;
    try {
        fs::create_directories(run_dir);
        std::vector<protocol::CaseArgs> args;
        for (size_t k = 0; k < ex.cases.size(); ++k) args.push_back(program_args(ex, ex.cases[k], cases[k]));
        write_file_atomic(cases_file, protocol::encode_cases(args));
    } catch (const std::exception& e) {
        fs::remove_all(run_dir, ec);
        run.prepare_error = e.what();
        return run;
    }
    ProcessSpec spec = sandbox_spec(compiler.toolchain(), binary, run_dir, cases_file, ex.limits, target, ex.dir.parent_path());
    spec.argv.insert(spec.argv.end(), extra_args.begin(), extra_args.end());
    run.process = run_in_sandbox(spec, [&](const char* data, size_t n) { return channel.feed(data, n); }, cancel);
    fs::remove_all(run_dir, ec);
    run.ms = ms_since(t0);
    return run;
}


}  // namespace attnlab
