// The nvcc build of the kernels (label cuda-nvcc): it links and, without a
// device, run_kernel_op falls back to the emulator instead of failing.
#include <doctest/doctest.h>

#include "attnlab/kernels/kernels.hpp"

using namespace attnlab;

TEST_CASE("the kernels were compiled by nvcc as well") {
    CHECK(kernels::built_with_nvcc());
}

TEST_CASE("without a device, every backend choice runs on the emulator") {
    if (kernels::gpu_available()) {
        MESSAGE("a CUDA device is present (" << kernels::gpu_device_name() << "): see the gpu test");
        return;
    }
    CHECK(kernels::gpu_device_name().empty());
    TensorData x = TensorData::zeros({4, 8});
    for (size_t i = 0; i < x.data.size(); ++i) x.data[i] = float(i);
    for (kernels::Backend b : {kernels::Backend::Auto, kernels::Backend::Gpu}) {
        kernels::KernelOptions options;
        options.backend = b;
        const auto run = kernels::run_kernel_op("split_heads", {{"x", Value::of_tensor(x)}, {"n_heads", Value::of_int(2)}}, options);
        REQUIRE(run.has_value());
        REQUIRE(run->ok());
        CHECK(run->backend == kernels::Backend::Emulator);
        // Head 1, row 0 starts with x[0][4] = 4.
        CHECK(run->output.tensor.data[16] == 4.0f);
    }
}
