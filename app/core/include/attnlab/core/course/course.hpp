#pragma once
// The course: exercises loaded from data folders (see exercises/README.md).
// Nothing here knows any exercise by name; everything follows the schema.
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "attnlab/common/value.hpp"
#include "attnlab/core/course/kernel_cause.hpp"
#include "attnlab/core/course/limits.hpp"
#include "attnlab/core/course/runtime_profile.hpp"

namespace attnlab {

namespace fs = std::filesystem;

enum class Lang { En, Id };
const char* lang_code(Lang lang);                // "en" / "id"
bool parse_lang(const std::string& s, Lang& out);  // accepts en, id (and en_US.UTF-8 style)

struct LocalizedText {
    std::string en, id;
    const std::string& get(Lang lang) const { return lang == Lang::Id && !id.empty() ? id : en; }
};

struct ParamSpec {
    std::string name;
    ValueKind kind = ValueKind::Tensor;
    std::string shape;  // documentation, e.g. "(T, D)"
};

struct ReturnSpec {
    ValueKind kind = ValueKind::Tensor;
    std::string shape;
    std::vector<std::string> dims;  // axis names for reporting, e.g. head,row,col
};

struct Tolerance {
    double atol = 1e-5;
    double rtol = 1e-4;
    std::string why;  // the exercise's one-line justification (authors read it)
};

// Is `a` close enough to the reference value `r`? |a - r| <= atol + rtol·|r|.
// The one definition the comparison, the views and the panels all use.
inline bool within(double a, double r, const Tolerance& t) {
    const double diff = a > r ? a - r : r - a;
    return diff <= t.atol + t.rtol * (r < 0 ? -r : r);
}

// Structural rules a CUDA exercise sets on the learner's launches, judged on
// the emulator's counters summed over a case's launches (never on time).
struct KernelRules {
    double max_sectors_per_load_request = 0;   // 0: no rule (a coalesced float load is 4)
    double max_sectors_per_store_request = 0;  // 0: no rule
    // Global sectors wasted by the case's launches (beyond what each request's
    // lanes' bytes fill) against the least traffic the operation needs (every
    // input and output byte once, in sectors). Extra loads only add waste.
    double max_wasted_sector_ratio = 0;        // 0: no rule
    // Static plus dynamic shared memory per block, in bytes: a bound that does
    // not grow with T (a tile, not a whole sequence's K and V).
    double max_shared_bytes_per_block = 0;     // 0: no rule
    // No block loads the same global element twice (K and V tiles read once
    // per block, as an online softmax promises).
    bool inputs_loaded_once_per_block = false;
    // Global bytes the case's launches read (what the threads asked for)
    // against the least traffic the operation needs, in bytes: a GEMM whose
    // threads each read a whole row and column reads ~2·D/(3 outputs' worth)
    // times more than one that shares tiles on chip.
    double max_global_read_ratio = 0;          // 0: no rule
    // Every launch has this many blocks: an expression over the case's names
    // (case_figures.hpp), e.g. "B*H" for one block per (sequence, head).
    std::string blocks_per_launch;             // "": no rule
    // Global bytes per load (store) request, at least: 32 lanes of 4-byte
    // accesses move at most 128, of float4 accesses up to 512, so a bound
    // above 128 asks for vector accesses. Judged only in the cases where
    // min_bytes_per_request_when (a condition over the case's names, "T >= 64")
    // holds, or in every case when it is empty: a row of a few floats has no
    // whole float4 to load in any kernel.
    double min_bytes_per_load_request = 0;     // 0: no rule
    double min_bytes_per_store_request = 0;    // 0: no rule
    std::string min_bytes_per_request_when;    // "": every case
    // The FLOPs the case's launches ran through wmma::mma_sync (the emulator
    // counts 2·16·16·16 per warp-wide call) against the operation's own count
    // (the reference op's flops), at least: a kernel that leaves one of its
    // products to float multiply-adds runs about half. Tiles padded past T
    // and masked keys count too, so a fully checked case with many full tiles
    // is where the rule bites; a sampled case is not judged.
    double min_tensor_flop_ratio = 0;          // 0: no rule
    // Shared-memory load requests (warp instructions, Nsight Compute's
    // smsp__inst_executed_op_shared_ld) per warp's worth of the operation's
    // multiply-adds (32 FMAs), summed over a case's launches, at most. `fmas`
    // is an expression over the case's names for the multiply-adds the
    // operation needs (a GEMM's M·N·K); the rule is judged only in the cases
    // where `when` holds (every case when empty), large enough that a tile's
    // padding past the edges counts for little. A thread computing one output
    // of a shared-memory tiled GEMM loads 2 per FMA; a TM x TN micro-tile held
    // in registers (TM + TN) / (TM·TN).
    struct SharedLoadsPerFma {
        double limit = 0;  // 0: no rule
        std::string fmas;
        std::string when;
    } max_shared_load_requests_per_warp_fma;
};

// A catalogued mistake of this exercise (exercise.json "mistakes"), with the
// learner's words from the course's catalogue (mistakes/<id>.json).
struct MistakeSpec {
    std::string id;
    LocalizedText title;
    LocalizedText message;
};

// A wrong (or alternative right) solution kept with the exercise, and what a
// check of it must say: a verdict code ("pass", "non_finite", ...) or the id of
// a catalogued mistake it must be diagnosed as (exercise.json "fixtures").
struct Fixture {
    fs::path file;       // relative to the exercise folder
    std::string expect;
};

struct Case {
    LocalizedText name;
    std::vector<Value> args;  // in entry-parameter order
    std::vector<std::string> tokens;
    // cases.json "checked_blocks": "first_and_last" (CUDA): a case too large
    // to check every block. Its launches check the grid's first and last
    // block; the others run the kernel's unchecked copy, their values still
    // compared (emu::CheckedBlocks, README "Sampled cases").
    bool sampled = false;
};

struct Exercise {
    std::string id;
    fs::path dir;
    LocalizedText title;
    std::vector<std::string> topics;
    std::string function;
    std::vector<ParamSpec> params;
    ReturnSpec returns;
    std::string reference;
    Runtime runtime = Runtime::Cpp;
    ParamSpec output;          // CUDA: the device tensor the learner's launcher fills (first parameter)
    KernelRules kernel_rules;  // CUDA
    // exercise.json "case_names": more names a text may use for a case, each
    // an expression over the names the parameters bind ("H": "n_heads").
    std::map<std::string, std::string> derived_case_names;
    Tolerance tolerance;
    Limits limits = Limits::learner_program();  // exercise.json "limits" over attnlab's defaults
    std::vector<Case> cases;
    LocalizedText statement;
    std::vector<LocalizedText> hints;
    LocalizedText explanation;
    std::vector<MistakeSpec> mistakes;
    std::vector<Fixture> fixtures;
    // Where a NaN or an infinity comes from in this exercise (exercise.json
    // "non_finite_hint"); empty: attnlab's own words, which speak of a softmax.
    LocalizedText non_finite_hint;
    // exercise.json "rule_advice": what to do when one of its kernel rules
    // fails, in this exercise's words, by the rule's cause code
    // ("global_reads_not_reused"); in place of attnlab's general advice.
    std::map<std::string, LocalizedText> rule_advice;

    const RuntimeProfile& profile() const { return profile_of(runtime); }
    const char* source_extension() const { return profile().source_extension; }
    fs::path starter_path() const { return dir / (std::string("starter") + source_extension()); }
    fs::path solution_path() const { return dir / (std::string("solution") + source_extension()); }
    // What the learner writes, e.g. "Tensor split_heads(const Tensor& x, int n_heads)",
    // or for CUDA "void split_heads(DeviceTensor& out, const DeviceTensor& x, int n_heads)".
    std::string signature() const;
    // The same, fully qualified, for the generated declaration header.
    std::string qualified_declaration() const;
};

// A problem in the course data. what() reads "<file>: <field>: <problem>".
class CourseError : public std::runtime_error {
public:
    CourseError(const fs::path& file, const std::string& field, const std::string& problem);
    const fs::path& file() const { return file_; }
    const std::string& field() const { return field_; }

private:
    fs::path file_;
    std::string field_;
};

// The newest course format this build reads (manifest.json "format_version").
// A course in a newer format is refused whole rather than half understood.
inline constexpr int kCourseFormatVersion = 1;

struct Course {
    fs::path dir;
    int format_version = 0;                // manifest.json "format_version"
    std::map<std::string, LocalizedText> topics;
    std::vector<Exercise> exercises;       // manifest order, only those that loaded
    std::vector<std::string> problems;     // one message per exercise that did not load
    std::map<std::string, std::string> broken;  // exercise id -> why it did not load
    const Exercise* find(const std::string& id) const;
    std::string topic_label(const std::string& topic, Lang lang) const;
};

// Loads the manifest and every exercise. A broken manifest (or one without a
// format_version, or newer than kCourseFormatVersion) throws CourseError;
// a broken exercise is left out and described in Course::problems, so one bad
// folder never takes the rest of the course down.
Course load_course(const fs::path& dir);
// Loads one exercise folder (throws CourseError).
Exercise load_exercise(const fs::path& dir, const std::map<std::string, LocalizedText>& topics);

}  // namespace attnlab
