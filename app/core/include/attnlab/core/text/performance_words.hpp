#pragma once
// The performance report in words and in JSON (check/performance.hpp computes it).
#include <string>

#include <nlohmann/json.hpp>

#include "attnlab/core/check/performance.hpp"

namespace attnlab {

// A short block for the CLI (a few lines, numbers in the language's format),
// ending with the assumptions in one line.
std::string describe_performance(const Performance& p, Lang lang);
// The model's assumptions, in words.
std::string performance_assumptions(Lang lang);
// A duration for people: "3.2 µs", "1.5 ms".
std::string format_seconds(double seconds, Lang lang);

// {"case", "bytes", "min_bytes", "traffic_ratio", "flops" (null when unknown),
//  "intensity", "estimates": [{"gpu", "seconds", "bound", "memory_seconds",
//  "compute_seconds", "fill", "blocks_per_sm"}], "launches": [{"kernel",
//  "blocks", "threads_per_block", "bytes", "flops", "estimates"}],
//  "measured_seconds"?, "assumptions"}
nlohmann::json performance_to_json(const Performance& p, Lang lang);

}  // namespace attnlab
