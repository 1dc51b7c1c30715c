// Wrong on purpose: each of the four projections is counted with a bias of
// d_model numbers, which the layers of this course do not have.
#include <attnlab/tensor.hpp>

long long attention_params(int d_model, int n_layers) {
    const long long d = d_model;
    const long long per_projection = d * d + d;  // weights + bias
    return 4 * per_projection * n_layers;
}
