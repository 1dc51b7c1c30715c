// Wrong on purpose: counts one layer and forgets to multiply by n_layers.
#include <attnlab/tensor.hpp>

long long attention_params(int d_model, int n_layers) {
    (void)n_layers;
    const long long d = d_model;
    return 4 * d * d;
}
