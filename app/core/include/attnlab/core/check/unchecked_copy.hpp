#pragma once
// The second build of a learner's .cu for an exercise with sampled cases: the
// same rewritten source compiled without instrumentation, linked beside the
// checked object, so that the blocks a sampled launch leaves out run at native
// speed (emu::CheckedBlocks, README "Sampled cases").
//
// Pure planning over the two objects' symbol tables: which functions of the
// unchecked object are renamed (so nothing clashes at the link, and calls
// inside it stay inside it), the table that pairs each function with its copy
// (the learner runtime's unchecked_copy() reads it), and when no copy may be
// linked at all: when the two builds could not share the program's data.
#include <string>
#include <utility>
#include <vector>

#include "attnlab/core/check/elf_symbols.hpp"

namespace attnlab {

// What the unchecked object's functions are renamed to: the prefix and their name.
inline constexpr const char* kUncheckedCopyPrefix = "attnlab_unchecked.";

struct UncheckedCopyPlan {
    // Why the copy is not linked ("" when it is): the reason, then the symbol.
    std::string refused, refused_symbol;
    std::vector<std::pair<std::string, std::string>> renames;  // in the unchecked object: name -> new name
    std::vector<std::pair<std::string, std::string>> pairs;    // a checked function's name -> its copy's
};

UncheckedCopyPlan plan_unchecked_copy(const elf::ObjectFile& checked, const elf::ObjectFile& unchecked);

// objcopy --redefine-syms's file for the plan's renames: "old new" per line.
std::string redefine_symbols_text(const UncheckedCopyPlan& plan);

// The assembly of the table of pairs: a section named attnlab_unchecked_copies
// of (checked address, unchecked address), which the linker bounds with
// __start_/__stop_ symbols.
std::string copies_table_assembly(const UncheckedCopyPlan& plan);

}  // namespace attnlab
