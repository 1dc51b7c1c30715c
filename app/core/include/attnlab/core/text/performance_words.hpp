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
// Bytes for people: 1,536 B / 12.3 KB / 4.5 MB / 1.2 GB (decimal units, like bandwidths).
std::string format_bytes(double bytes, Lang lang);
// What bounds an estimate, in words: memory, FP32 compute, tensor-core
// compute, too few blocks... (the CLI report and the roofline say it alike).
std::string describe_bound(const TimeEstimate& e, Lang lang);

// {"case", "bytes" (requested of L1), "min_bytes", "traffic_ratio", "flops"
//  (null when unknown), "intensity", "tensor_flops", "estimates": [{"gpu",
//  "seconds", "bound", "memory_seconds", "compute_seconds", "fill" (share of
//  SMs with a block), "blocks_per_sm", "waves", "achieved_occupancy", "roof"
//  ("fp32" / "tensor_fp16"), "dram_bytes", "dram_ratio", "l1_hit_rate",
//  "l2_hit_rate"}], "launches": [{"kernel", "blocks", "threads_per_block",
//  "bytes", "flops", "tensor_flops", "estimates"}],
//  "measured_seconds"?, "assumptions"}
nlohmann::json performance_to_json(const Performance& p, Lang lang);

}  // namespace attnlab
