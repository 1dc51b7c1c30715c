#pragma once
// "Beat your v1" in words and in JSON (check/kernel_versions.hpp computes it):
// the cells of the side-by-side table, which the CLI prints and the Kernel
// tab draws, so both say the same.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/core/check/kernel_versions.hpp"

namespace attnlab {

// One row for people: the counter's name, both values in their units, the
// change as current / earlier ("×0.31"), and whether that is better, worse
// or neither ("" when the row has no better side or nothing changed).
struct VersionCells {
    std::string label, before, after, change, judgement;
    int direction = 0;  // +1 better, -1 worse, 0 neither
};
VersionCells version_cells(const VersionRow& row, const std::string& gpu, Lang lang);

// The estimated speed-up of the current kernel over the earlier one on `gpu`
// in a sentence ("3.2× faster than your v1"); "" without both estimates.
std::string describe_speedup(const VersionComparison& c, size_t gpu, Lang lang);

// What the earlier kernel's run gave, when it is not a plain pass: a wrong
// value or a fault on this case (its figures then describe a kernel that is
// not right here, or there are none). "" for a pass.
std::string describe_earlier_outcome(const VersionComparison& c, const std::string& earlier_title, Lang lang);

// The CLI's text: a header, the table, the speed-up, the earlier run's outcome.
std::string describe_version_comparison(const VersionComparison& c, const std::string& earlier_title, size_t gpu, Lang lang);

// {"earlier", "current", "case", "earlier_verdict", "gpu", "rows": [{"counter",
//  "before", "after", "better"}], "speedup"?}
nlohmann::json version_comparison_to_json(const VersionComparison& c, size_t gpu, Lang lang);

}  // namespace attnlab
