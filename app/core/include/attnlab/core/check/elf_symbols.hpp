#pragma once
// Reading symbol tables out of ELF files, with no tool and no library: a
// learner's object (its .symtab and section names), a shared library's
// exported names (.dynsym) and a static archive's index (the "/" member).
// Pure functions over bytes, bounds-checked: a truncated or hostile file is
// an error string, never a read past its end.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::elf {

enum class SymbolType : uint8_t { NoType, Object, Function, Section, File, Common, Tls, Ifunc, Other };
enum class Binding : uint8_t { Local, Global, Weak, Unique, Other };

struct Symbol {
    std::string name;
    SymbolType type = SymbolType::NoType;
    Binding binding = Binding::Local;
    bool defined = false;     // not SHN_UNDEF
    bool in_code = false;     // defined in a section with SHF_EXECINSTR
    uint32_t section = 0;     // the section index it is defined in (0: undefined, 0xfff1: absolute...)
    uint64_t value = 0;       // its offset in that section (a relocatable object)
    uint64_t size = 0;
};

struct ObjectFile {
    std::vector<Symbol> symbols;             // .symtab, in file order (index 0, the null symbol, left out)
    std::vector<std::string> section_names;  // by section index
};

// A relocatable object (ET_REL) or any ELF64 little-endian file with a .symtab.
std::optional<ObjectFile> read_object(std::string_view bytes, std::string& error);

// The names a shared library exports: defined, global or weak, default or
// protected visibility, from .dynsym.
std::optional<std::vector<std::string>> read_exported_names(std::string_view bytes, std::string& error);

// The names a static archive's members define, from its symbol index (GNU
// "/" or "/SYM64/" member), as the linker reads it to pull members.
std::optional<std::vector<std::string>> read_archive_index(std::string_view bytes, std::string& error);

}  // namespace attnlab::elf
