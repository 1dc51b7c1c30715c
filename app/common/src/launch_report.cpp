#include "attnlab/common/launch_report.hpp"

namespace attnlab::emu {

std::string thread_ranges(const std::vector<unsigned>& threads) {
    std::string out;
    for (size_t i = 0; i < threads.size();) {
        size_t j = i;
        while (j + 1 < threads.size() && threads[j + 1] == threads[j] + 1) ++j;
        if (!out.empty()) out += ", ";
        out += std::to_string(threads[i]);
        if (j > i) out += "-" + std::to_string(threads[j]);
        i = j + 1;
    }
    return out;
}

}  // namespace attnlab::emu
