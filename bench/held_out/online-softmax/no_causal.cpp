// expect: mask_missing
#include <attnlab/tensor.hpp>
#include <cmath>
#include <vector>
using namespace attnlab;
Tensor online_causal_attention(const Tensor& q, const Tensor& k, const Tensor& v, int chunk) {
    const int64_t T = q.shape(0), hd = q.shape(1);
    Tensor out = Tensor::zeros({T, hd});
    for (int64_t i = 0; i < T; ++i) {
        float run_max = -INFINITY, denom = 0.0f;
        std::vector<float> num(hd, 0.0f);
        for (int64_t start = 0; start < T; start += chunk) {
            int64_t stop = start + chunk;
            if (stop > T) stop = T;
            
            std::vector<float> sc;
            float cmax = -INFINITY;
            for (int64_t j = start; j < stop; ++j) {
                float d = 0.0f;
                for (int64_t e = 0; e < hd; ++e) d += q(i, e) * k(j, e);
                sc.push_back(d / std::sqrt((float)hd));
                if (sc.back() > cmax) cmax = sc.back();
            }
            const float new_max = cmax > run_max ? cmax : run_max;
            const float fix = /*FIX*/std::exp(run_max - new_max);
            /*RESCALE_L*/denom *= fix;
            /*RESCALE_ACC*/for (int64_t e = 0; e < hd; ++e) num[e] *= fix;
            for (int64_t j = start; j < stop; ++j) {
                const float w = std::exp(sc[j - start] - new_max);
                denom += w;
                for (int64_t e = 0; e < hd; ++e) num[e] += w * v(j, e);
            }
            run_max = new_max;
        }
        for (int64_t e = 0; e < hd; ++e) out(i, e) = num[e] / denom;
    }
    return out;
}
