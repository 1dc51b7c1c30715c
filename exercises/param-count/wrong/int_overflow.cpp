// Wrong on purpose: the product is computed in int and overflows for large
// models before it is converted to the long long that is returned.
#include <attnlab/tensor.hpp>

long long attention_params(int d_model, int n_layers) {
    return 4 * d_model * d_model * n_layers;
}
