// Fixture for concat-project (right/concat_blocks).
// A correct variant: glue the heads' (T, hd) blocks side by side with concat. It must pass.
#include <attnlab/tensor.hpp>

#include <vector>

using namespace attnlab;

Tensor merge_project(const Tensor& heads, const Tensor& w_o) {
    const int64_t H = heads.shape(0), T = heads.shape(1), hd = heads.shape(2);
    (void)T;
    (void)hd;
    std::vector<Tensor> blocks;
    for (int64_t h = 0; h < H; ++h) blocks.push_back(heads.select(0, h));
    return matmul(concat(blocks, 1), w_o);
}
