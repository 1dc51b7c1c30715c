#pragma once
// Between the sanitizer hooks (sanitizer_hooks.cpp) and the checks of device
// memory they lead to (raw_access.cpp).
#include <cstddef>
#include <cstdint>

namespace attnlab::emu::raw {

// One load or store of `size` bytes at `a` by the instruction that returns to
// `pc`. `always_issued`: a volatile access, or a device library's instruction
// (a WMMA fragment's load), which is never served from a register: a shared
// load the thread repeats is otherwise (raw_access.cpp: shared_read).
void access(uintptr_t a, unsigned size, bool write, uintptr_t pc, bool always_issued = false);
// A range (a struct copy): pieces of at most 16 bytes, as a GPU moves it.
void access_range(uintptr_t a, size_t size, bool write, uintptr_t pc);

}  // namespace attnlab::emu::raw
