// Wrong on purpose: the count is computed in float, which rounds any count
// above 2^24 that its 24-bit significand cannot hold.
#include <attnlab/tensor.hpp>

long long attention_params(int d_model, int n_layers) {
    const float params = 4.0f * d_model * d_model * n_layers;
    return static_cast<long long>(params);
}
