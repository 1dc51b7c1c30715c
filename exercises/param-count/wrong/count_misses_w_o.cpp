// Wrong on purpose: counts W_Q, W_K and W_V but forgets the output projection W_O.
#include <attnlab/tensor.hpp>

long long attention_params(int d_model, int n_layers) {
    const long long d = d_model;
    return 3 * d * d * n_layers;
}
