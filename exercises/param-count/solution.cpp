// Attention parameters of a model: 4 * d_model^2 per layer, times the layers.
#include <attnlab/tensor.hpp>

#include <cstdint>

using namespace attnlab;

long long attention_params(int d_model, int n_layers) {
    // Widen before multiplying: 4 * 4096^2 * 32 is already 2^31, one past the
    // largest int, and an int product would overflow before any conversion.
    const int64_t d = d_model;
    const int64_t per_matrix = d * d;       // W_Q, W_K, W_V and W_O are each (D, D)
    const int64_t per_layer = 4 * per_matrix;  // no biases are counted
    return per_layer * n_layers;
}
