// A correct alternative: count the fused (D, 3D) W_QKV and the (D, D) W_O.
#include <attnlab/tensor.hpp>

long long attention_params(int d_model, int n_layers) {
    const long long d = d_model;
    const long long fused_qkv = d * (3 * d);
    const long long w_o = d * d;
    return (fused_qkv + w_o) * n_layers;
}
