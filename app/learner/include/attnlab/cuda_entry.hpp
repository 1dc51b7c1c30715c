#pragma once
// The entry point of a CUDA exercise, shared by both runtimes (the emulator's
// and the GPU's, after attnlab/cuda.hpp, which serves both):
// host tensors in, device tensors to the learner's host function, its `out`
// back. Each runtime defines the functions declared here (cuda_runtime.cpp,
// cuda_runtime_gpu.cu). On the emulator only the exercise's registration
// object includes it (Compiler::entry_object), never the learner's file: its
// standard headers would cost every compile.
#include <string>
#include <type_traits>
#include <utility>
#include <tuple>
#include <vector>

#include "attnlab/entry.hpp"  // (after the runtime's attnlab/cuda.hpp, whose DeviceTensor this uses)


namespace attnlab::detail {

void register_cuda_entry(const char* name, int arity, ErasedFn fn, Invoker invoker, std::vector<std::string> names);
// A device tensor of `shape`, never written; or filled from host values.
DeviceTensor device_tensor(const std::string& name, const std::vector<int64_t>& shape);
DeviceTensor device_tensor(const std::string& name, const std::vector<int64_t>& shape, const std::vector<float>& values);
Slot finish_output(const DeviceTensor& out);  // downloads it and notes elements no kernel wrote
const std::vector<std::string>& cuda_param_names();  // out first, then the inputs, as the exercise names them
bool case_faulted();  // a launch of the running case failed (a fault, a CUDA error)
// The running case's `out` (null between cases): if the learner's code calls
// exit() after a fault, the runtime still reports the case from it.
void set_current_output(const DeviceTensor* out);

inline std::string cuda_param_name(size_t i) {
    const auto& names = cuda_param_names();
    return i < names.size() ? names[i] : (i == 0 ? "out" : "input" + std::to_string(i));
}

// Argument i (after the output) as a device tensor named after its parameter.
inline DeviceTensor device_input(const std::vector<Slot>& args, int i) {
    const Slot& s = args[static_cast<size_t>(i)];
    if (s.kind != Kind::Tensor) argument_kind_mismatch(i, Kind::Tensor, s.kind);
    const Tensor host = s.tensor.contiguous();
    return device_tensor(cuda_param_name(static_cast<size_t>(i)), host.shape(),
                         std::vector<float>(host.data(), host.data() + host.size()));
}

// args[0] carries the expected output's shape: `out` is allocated with it, unwritten.
inline DeviceTensor device_output(const std::vector<Slot>& args) {
    if (args.empty() || args[0].kind != Kind::Tensor) argument_kind_mismatch(0, Kind::Tensor, args.empty() ? Kind::Int : args[0].kind);
    return device_tensor(cuda_param_name(0), args[0].tensor.shape());
}

template <class T> T cuda_argument(const std::vector<Slot>& args, int i) {
    if constexpr (std::is_same_v<T, DeviceTensor>) return device_input(args, i);
    else return argument<T>(args, i);
}

template <class... A, size_t... I>
Slot invoke_cuda(void (*f)(DeviceTensor&, A...), const std::vector<Slot>& args, std::index_sequence<I...>) {
    DeviceTensor out = device_output(args);
    // The inputs are on the device before the learner's function starts: on a
    // GPU, set_current_output also starts the case's measured time.
    std::tuple<std::decay_t<A>...> inputs{cuda_argument<std::decay_t<A>>(args, static_cast<int>(I) + 1)...};
    set_current_output(&out);
    try {
        f(out, std::get<I>(inputs)...);
    } catch (const std::exception&) {
        // `if (cudaGetLastError() != cudaSuccess) throw ...` after a failed
        // launch: the fault is the news, and finish_output reports it.
        set_current_output(nullptr);
        if (!case_faulted()) throw;
    }
    set_current_output(nullptr);
    return finish_output(out);
}

template <class... A> Slot invoke_cuda_erased(ErasedFn fn, const std::vector<Slot>& args) {
    return invoke_cuda(reinterpret_cast<void (*)(DeviceTensor&, A...)>(fn), args, std::index_sequence_for<A...>{});
}

// The registration is compiled once per exercise into its own object (see
// Compiler::entry_object): the learner's file, compiled on every check, then
// holds the learner's code alone.
struct CudaEntryRegistration {
    template <class... A>
    CudaEntryRegistration(void (*f)(DeviceTensor&, A...), const char* name, std::vector<std::string> param_names) {
        register_cuda_entry(name, static_cast<int>(1 + sizeof...(A)), reinterpret_cast<ErasedFn>(f), &invoke_cuda_erased<A...>,
                            std::move(param_names));
    }
};

}  // namespace attnlab::detail
