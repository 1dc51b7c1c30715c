#pragma once
// What a learner's compiled object may define, decided before it is linked.
// The learner's code shares a process with attnlab's harness (and, for CUDA,
// the emulator): a definition of `write`, `memcpy`, `operator new`, `main` or
// a sanitizer hook would replace attnlab's own for the whole program, and a
// function the sanitizer did not instrument would touch device memory where
// the emulator cannot see it. So the object may define only what an exercise
// file defines: the entry point, kernels, __device__ and host helpers, its
// own statics, and what the headers it includes instantiate. The rules are
// pure functions over the object's symbols (elf_symbols.hpp), table-tested.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "attnlab/core/check/elf_symbols.hpp"

namespace attnlab {

enum class ObjectProblemKind : uint8_t {
    RunsBeforeHarness,  // code that runs before main(): a .preinit_array/.init section or an IFUNC resolver
    ReservedName,       // a name reserved to the implementation: `_x` / `__x` at global scope, namespaces std, __gnu_cxx, __cxxabiv1, attnlab
    LibraryName,        // a name a library of the program defines (libc's `write`, libstdc++'s `operator new`, attnlab's `main`)
    NotInstrumented,    // (CUDA) a function the sanitizer's pass did not run on: its loads and stores are invisible
};

// "runs_before_harness", "reserved_name", "library_name", "not_instrumented" (stable: --json).
const char* object_problem_code(ObjectProblemKind kind);

struct ObjectProblem {
    ObjectProblemKind kind = ObjectProblemKind::ReservedName;
    std::string symbol;  // the object's (mangled) name, or the section's
    std::string owner;   // LibraryName: the library that defines it ("libc.so.6")
    bool operator==(const ObjectProblem& o) const { return kind == o.kind && symbol == o.symbol && owner == o.owner; }
};

// Names defined by the libraries a learner program links, each with the
// library's file name.
using LibraryNames = std::unordered_map<std::string, std::string>;

struct ObjectRules {
    const LibraryNames* library_names = nullptr;
    // CUDA on the emulator: every function must be one the sanitizer's pass
    // ran on (the assembler names g++ -fdump-tree-tsan listed).
    bool require_instrumented = false;
    std::unordered_set<std::string> instrumented;
};

// Every problem of `object` under `rules`, in symbol order; none: it may be linked.
std::vector<ObjectProblem> learner_object_problems(const elf::ObjectFile& object, const ObjectRules& rules);

// The first namespace of a mangled C++ name ("_ZNK7attnlab6Tensor4sizeEv" ->
// "attnlab", "_ZNSt6vectorIfSaIfEED2Ev" -> "std"); "" for a name at global
// scope or one this does not read (special names, local entities).
std::string mangled_namespace(const std::string& name);

// The assembler names of the functions in a GCC tree dump (";; Function f (_Z1fv, funcdef_no=...)").
std::unordered_set<std::string> functions_in_tree_dump(const std::string& dump);

}  // namespace attnlab
