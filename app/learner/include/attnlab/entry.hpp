#pragma once
// Glue between a learner's entry-point function and attnlab's harness main().
// attnlab generates a tiny header per exercise that declares the entry point
// (from the exercise's metadata) and registers it with EntryRegistration; the
// compiler is given that header with -include, so learner files need nothing
// beyond <attnlab/tensor.hpp> and must not define main().
#include <type_traits>
#include <utility>
#include <vector>

#include "attnlab/tensor.hpp"

namespace attnlab::detail {

enum class Kind { Tensor = 1, Int = 2, Float = 3 };

struct Slot {  // one argument or the return value
    Kind kind = Kind::Tensor;
    Tensor tensor;
    long long int_value = 0;
    double float_value = 0;
};

// Plain function pointers rather than std::function: this header is compiled
// with every learner file, and <functional> alone costs ~0.1 s of that.
using ErasedFn = void (*)();
using Invoker = Slot (*)(ErasedFn fn, const std::vector<Slot>& args);
void register_entry(const char* name, int arity, ErasedFn fn, Invoker invoker);
[[noreturn]] void argument_kind_mismatch(int index, Kind expected, Kind got);

template <class T>
T argument(const std::vector<Slot>& args, int i) {
    const Slot& s = args[static_cast<size_t>(i)];
    if constexpr (std::is_same_v<T, Tensor>) {
        if (s.kind != Kind::Tensor) argument_kind_mismatch(i, Kind::Tensor, s.kind);
        return s.tensor;
    } else if constexpr (std::is_integral_v<T>) {
        if (s.kind != Kind::Int) argument_kind_mismatch(i, Kind::Int, s.kind);
        return static_cast<T>(s.int_value);
    } else {
        static_assert(std::is_floating_point_v<T>, "entry parameters are Tensor, integers or floats");
        if (s.kind != Kind::Float) argument_kind_mismatch(i, Kind::Float, s.kind);
        return static_cast<T>(s.float_value);
    }
}

template <class R>
Slot to_slot(R&& r) {
    using T = std::decay_t<R>;
    Slot s;
    if constexpr (std::is_same_v<T, Tensor>) {
        s.kind = Kind::Tensor;
        s.tensor = std::forward<R>(r);
    } else if constexpr (std::is_integral_v<T>) {
        s.kind = Kind::Int;
        s.int_value = static_cast<long long>(r);
    } else {
        static_assert(std::is_floating_point_v<T>, "entry points return Tensor, an integer or a float");
        s.kind = Kind::Float;
        s.float_value = static_cast<double>(r);
    }
    return s;
}

template <class R, class... A, size_t... I>
Slot invoke(R (*f)(A...), const std::vector<Slot>& args, std::index_sequence<I...>) {
    return to_slot(f(argument<std::decay_t<A>>(args, static_cast<int>(I))...));
}

template <class R, class... A>
Slot invoke_erased(ErasedFn fn, const std::vector<Slot>& args) {
    return invoke(reinterpret_cast<R (*)(A...)>(fn), args, std::index_sequence_for<A...>{});
}

struct EntryRegistration {
    template <class R, class... A>
    EntryRegistration(R (*f)(A...), const char* name) {
        register_entry(name, static_cast<int>(sizeof...(A)), reinterpret_cast<ErasedFn>(f), &invoke_erased<R, A...>);
    }
};

}  // namespace attnlab::detail
