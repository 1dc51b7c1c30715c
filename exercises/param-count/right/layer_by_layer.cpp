// A correct alternative: add up the four matrices of every layer one by one.
#include <attnlab/tensor.hpp>

long long attention_params(int d_model, int n_layers) {
    const long long entries = static_cast<long long>(d_model) * d_model;
    long long total = 0;
    for (int layer = 0; layer < n_layers; ++layer)
        for (int matrix = 0; matrix < 4; ++matrix) total += entries;  // W_Q, W_K, W_V, W_O
    return total;
}
