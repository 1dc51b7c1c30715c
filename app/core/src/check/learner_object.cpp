#include "attnlab/core/check/learner_object.hpp"

#include <cctype>
#include <cstring>
#include <map>
#include <sstream>

namespace attnlab {
namespace {

bool is_mangled(const std::string& name) { return name.size() > 2 && name[0] == '_' && name[1] == 'Z'; }

// Namespaces a program may not add definitions to: the standard library's, the
// compiler runtime's and attnlab's own (its harness and emulator live there).
bool reserved_namespace(const std::string& ns) { return ns == "std" || ns == "__gnu_cxx" || ns == "__cxxabiv1" || ns == "attnlab"; }

// <source-name> ::= <length> <identifier>, at `i`; "" when there is none.
std::string source_name_at(const std::string& s, size_t i) {
    size_t digits_end = i;
    while (digits_end < s.size() && std::isdigit(static_cast<unsigned char>(s[digits_end]))) ++digits_end;
    if (digits_end == i || digits_end - i > 6) return {};
    const size_t length = std::stoul(s.substr(i, digits_end - i));
    if (length > s.size() - digits_end) return {};
    return s.substr(digits_end, length);
}

// The first namespace of the <name> at `i` of a mangled name.
std::string namespace_of_name(const std::string& s, size_t i) {
    if (i < s.size() && s[i] == 'L') ++i;  // internal linkage
    const bool nested = i < s.size() && s[i] == 'N';
    if (nested) {
        ++i;
        while (i < s.size() && std::strchr("rVKRO", s[i]) != nullptr) ++i;  // cv- and ref-qualifiers of a member function
    }
    if (s.compare(i, 2, "St") == 0) return "std";
    static const char* const kStdAbbreviations[] = {"Sa", "Sb", "Ss", "Si", "So", "Sd"};
    for (const char* a : kStdAbbreviations)
        if (s.compare(i, 2, a) == 0) return "std";
    if (!nested) return {};  // an unscoped name: the global namespace
    return source_name_at(s, i);
}

// Past a call offset of a thunk: h <nv-offset> _ | v <offset> _ <offset> _.
size_t skip_call_offset(const std::string& s, size_t i) {
    const int numbers = i < s.size() && s[i] == 'v' ? 2 : 1;
    ++i;
    for (int n = 0; n < numbers; ++n) {
        if (i < s.size() && s[i] == 'n') ++i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
        if (i >= s.size() || s[i] != '_') return std::string::npos;
        ++i;
    }
    return i;
}

bool is_thunk(const std::string& name) { return name.compare(0, 4, "_ZTh") == 0 || name.compare(0, 4, "_ZTv") == 0 || name.compare(0, 4, "_ZTc") == 0; }

// A part of a function that g++ placed elsewhere ("f.cold"): it belongs to f.
std::string function_of_part(const std::string& name) {
    const size_t cold = name.rfind(".cold");
    if (cold != std::string::npos && cold > 0) return name.substr(0, cold);
    return name;
}

void check_definition(const elf::Symbol& s, const ObjectRules& rules, std::vector<ObjectProblem>& out) {
    if (s.binding == elf::Binding::Local || !s.defined || s.name.empty()) return;
    if (s.type == elf::SymbolType::Section || s.type == elf::SymbolType::File) return;
    if (s.type == elf::SymbolType::Ifunc) {
        out.push_back({ObjectProblemKind::RunsBeforeHarness, s.name, ""});
        return;
    }
    const bool strong = s.binding == elf::Binding::Global;
    if (!is_mangled(s.name)) {
        // No C or C++ identifier holds a '.': such a name is the compiler's
        // own (DW.ref.__gxx_personality_v0, one copy kept by the linker).
        if (s.name.find('.') != std::string::npos) return;
        // A C name: even a weak one in the executable replaces a shared library's.
        if (s.name[0] == '_') {
            out.push_back({ObjectProblemKind::ReservedName, s.name, ""});
            return;
        }
    } else if (strong && reserved_namespace(mangled_namespace(s.name))) {
        out.push_back({ObjectProblemKind::ReservedName, s.name, ""});
        return;
    } else if (!strong) {
        // A weak C++ definition is what an included header's inline function or
        // template instantiates: the linker keeps one copy, the library's own
        // where the library is linked first.
        return;
    }
    if (rules.library_names) {
        const auto it = rules.library_names->find(s.name);
        if (it != rules.library_names->end()) out.push_back({ObjectProblemKind::LibraryName, s.name, it->second});
    }
}

// Every piece of code the object holds must be a function the sanitizer's pass
// ran on, under one of the names at its address (a constructor's C1 and C2 are
// one function). A thunk only adjusts `this` and jumps: g++ makes it without
// the pass.
void check_instrumented(const elf::ObjectFile& object, const ObjectRules& rules, std::vector<ObjectProblem>& out) {
    std::map<std::pair<uint32_t, uint64_t>, bool> instrumented_at;
    for (const elf::Symbol& s : object.symbols)
        if (s.in_code && rules.instrumented.count(function_of_part(s.name))) instrumented_at[{s.section, s.value}] = true;
    for (const elf::Symbol& s : object.symbols) {
        if (!s.in_code || s.name.empty() || s.type == elf::SymbolType::Section || s.type == elf::SymbolType::File) continue;
        if (s.name.compare(0, 2, ".L") == 0 || is_thunk(s.name)) continue;
        if (instrumented_at.count({s.section, s.value}) || rules.instrumented.count(function_of_part(s.name))) continue;
        out.push_back({ObjectProblemKind::NotInstrumented, s.name, ""});
    }
}

}  // namespace

const char* object_problem_code(ObjectProblemKind kind) {
    switch (kind) {
        case ObjectProblemKind::RunsBeforeHarness: return "runs_before_harness";
        case ObjectProblemKind::ReservedName: return "reserved_name";
        case ObjectProblemKind::LibraryName: return "library_name";
        case ObjectProblemKind::NotInstrumented: return "not_instrumented";
    }
    return "?";
}

std::string mangled_namespace(const std::string& name) {
    if (!is_mangled(name)) return {};
    if (name.compare(0, 3, "_ZZ") == 0) return namespace_of_name(name, 3);  // a local entity: its function's
    if (name.compare(0, 4, "_ZGV") == 0) {                                // a guard variable
        const size_t i = name.compare(0, 5, "_ZGVZ") == 0 ? 5 : 4;
        return namespace_of_name(name, i);
    }
    if (is_thunk(name)) {
        if (name[3] == 'c') return {};
        const size_t i = skip_call_offset(name, 3);
        return i == std::string::npos ? std::string() : namespace_of_name(name, i);
    }
    if (name.compare(0, 3, "_ZT") == 0) return name.size() > 4 ? namespace_of_name(name, 4) : std::string();  // vtable, typeinfo, VTT
    return namespace_of_name(name, 2);
}

std::unordered_set<std::string> functions_in_tree_dump(const std::string& dump) {
    std::unordered_set<std::string> names;
    std::istringstream in(dump);
    const std::string marker = ";; Function ";
    // ";; Function <name as written> (<assembler name>, funcdef_no=N, ...)": the
    // name as written may hold " (" itself (a function pointer type in a
    // template argument); the assembler name holds neither " (" nor ",".
    for (std::string line; std::getline(in, line);) {
        if (line.compare(0, marker.size(), marker) != 0) continue;
        const size_t fields = line.find(", funcdef_no=", marker.size());
        if (fields == std::string::npos) continue;
        const size_t open = line.rfind(" (", fields);
        if (open == std::string::npos || open < marker.size()) continue;
        names.insert(line.substr(open + 2, fields - open - 2));
    }
    return names;
}

std::vector<ObjectProblem> learner_object_problems(const elf::ObjectFile& object, const ObjectRules& rules) {
    std::vector<ObjectProblem> out;
    // The harness guards its result channel from the first instruction of
    // main's program (a .preinit_array entry of its own): nothing of the
    // learner's may run before it.
    for (const std::string& section : object.section_names)
        if (section == ".preinit_array" || section == ".init" || section == ".ctors" || section.compare(0, 15, ".preinit_array.") == 0)
            out.push_back({ObjectProblemKind::RunsBeforeHarness, section, ""});
    for (const elf::Symbol& s : object.symbols) check_definition(s, rules, out);
    if (rules.require_instrumented) check_instrumented(object, rules, out);
    return out;
}

}  // namespace attnlab
