#include "attnlab/core/check/elf_symbols.hpp"

#include <cstring>

namespace attnlab::elf {
namespace {

// ELF64's fixed layout (the System V gABI), little-endian only: attnlab runs
// learner programs on the machine that built them (x86-64 or AArch64).
constexpr size_t kHeaderSize = 64;
constexpr size_t kSectionHeaderSize = 64;
constexpr size_t kSymbolSize = 24;
constexpr uint32_t kSymtab = 2, kNoBits = 8, kDynsym = 11, kSymtabShndx = 18;
constexpr uint64_t kExecInstr = 0x4;
constexpr uint16_t kUndefined = 0, kLoReserve = 0xff00, kCommonIndex = 0xfff2, kExtendedIndex = 0xffff;

template <class T> bool read_at(std::string_view bytes, uint64_t offset, T& out) {
    if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
    std::memcpy(&out, bytes.data() + offset, sizeof(T));
    return true;
}

struct Section {
    uint32_t name = 0, type = 0, link = 0;
    uint64_t flags = 0, offset = 0, size = 0, entsize = 0;
};

struct Elf {
    std::string_view bytes;
    std::vector<Section> sections;
    uint16_t names_index = 0;
};

// A NUL-terminated string at `at` inside section `s`; "" when out of bounds.
std::string string_in(const Elf& elf, const Section& s, uint64_t at) {
    if (at >= s.size || s.offset > elf.bytes.size() || s.size > elf.bytes.size() - s.offset) return {};
    const char* begin = elf.bytes.data() + s.offset + at;
    const size_t room = static_cast<size_t>(s.size - at);
    const void* nul = std::memchr(begin, '\0', room);
    return nul ? std::string(begin, static_cast<const char*>(nul)) : std::string();
}

bool parse_elf(std::string_view bytes, Elf& elf, std::string& error) {
    if (bytes.size() < kHeaderSize || std::memcmp(bytes.data(), "\x7f" "ELF", 4) != 0) return error = "not an ELF file", false;
    if (bytes[4] != 2 || bytes[5] != 1) return error = "not a 64-bit little-endian ELF file", false;
    uint64_t shoff = 0;
    uint16_t shentsize = 0, shnum = 0;
    read_at(bytes, 0x28, shoff);
    read_at(bytes, 0x3A, shentsize);
    read_at(bytes, 0x3C, shnum);
    read_at(bytes, 0x3E, elf.names_index);
    if (shnum == 0 || shentsize != kSectionHeaderSize) return error = "no section headers", false;
    if (shoff > bytes.size() || (bytes.size() - shoff) / kSectionHeaderSize < shnum) return error = "section headers past the end", false;
    elf.bytes = bytes;
    elf.sections.resize(shnum);
    for (uint16_t i = 0; i < shnum; ++i) {
        const uint64_t at = shoff + uint64_t{i} * kSectionHeaderSize;
        Section& s = elf.sections[i];
        read_at(bytes, at + 0, s.name);
        read_at(bytes, at + 4, s.type);
        read_at(bytes, at + 8, s.flags);
        read_at(bytes, at + 24, s.offset);
        read_at(bytes, at + 32, s.size);
        read_at(bytes, at + 40, s.link);
        read_at(bytes, at + 56, s.entsize);
        if (s.type != kNoBits && (s.offset > bytes.size() || s.size > bytes.size() - s.offset))
            return error = "section " + std::to_string(i) + " lies past the end", false;
    }
    if (elf.names_index >= shnum) return error = "no section name table", false;
    return true;
}

const Section* first_of_type(const Elf& elf, uint32_t type) {
    for (const Section& s : elf.sections)
        if (s.type == type) return &s;
    return nullptr;
}

SymbolType type_of(uint8_t info, uint16_t shndx) {
    if (shndx == kCommonIndex) return SymbolType::Common;
    switch (info & 0xf) {
        case 0: return SymbolType::NoType;
        case 1: return SymbolType::Object;
        case 2: return SymbolType::Function;
        case 3: return SymbolType::Section;
        case 4: return SymbolType::File;
        case 5: return SymbolType::Common;
        case 6: return SymbolType::Tls;
        case 10: return SymbolType::Ifunc;
        default: return SymbolType::Other;
    }
}

Binding binding_of(uint8_t info) {
    switch (info >> 4) {
        case 0: return Binding::Local;
        case 1: return Binding::Global;
        case 2: return Binding::Weak;
        case 10: return Binding::Unique;
        default: return Binding::Other;
    }
}

// Every symbol of `table` (a SHT_SYMTAB or SHT_DYNSYM section).
bool read_table(const Elf& elf, const Section& table, std::vector<Symbol>& out, std::string& error) {
    if (table.entsize != kSymbolSize || table.link >= elf.sections.size()) return error = "a malformed symbol table", false;
    const Section& strings = elf.sections[table.link];
    const Section* extended = first_of_type(elf, kSymtabShndx);
    const uint64_t count = table.size / kSymbolSize;
    out.reserve(static_cast<size_t>(count));
    for (uint64_t i = 1; i < count; ++i) {
        const uint64_t at = table.offset + i * kSymbolSize;
        uint32_t name = 0;
        uint8_t info = 0;
        uint16_t shndx = 0;
        Symbol s;
        read_at(elf.bytes, at + 0, name);
        read_at(elf.bytes, at + 4, info);
        read_at(elf.bytes, at + 6, shndx);
        read_at(elf.bytes, at + 8, s.value);
        read_at(elf.bytes, at + 16, s.size);
        uint32_t section = shndx;
        if (shndx == kExtendedIndex && extended) read_at(elf.bytes, extended->offset + i * 4, section);
        s.name = string_in(elf, strings, name);
        s.type = type_of(info, shndx);
        s.binding = binding_of(info);
        s.defined = shndx != kUndefined;
        s.section = section;
        s.in_code = s.defined && (shndx < kLoReserve || shndx == kExtendedIndex) && section < elf.sections.size() &&
                    (elf.sections[section].flags & kExecInstr) != 0;
        out.push_back(std::move(s));
    }
    return true;
}

}  // namespace

std::optional<ObjectFile> read_object(std::string_view bytes, std::string& error) {
    Elf elf;
    if (!parse_elf(bytes, elf, error)) return std::nullopt;
    ObjectFile object;
    const Section& names = elf.sections[elf.names_index];
    for (const Section& s : elf.sections) object.section_names.push_back(string_in(elf, names, s.name));
    if (const Section* symtab = first_of_type(elf, kSymtab)) {
        if (!read_table(elf, *symtab, object.symbols, error)) return std::nullopt;
    } else if (elf.sections.size() > 1) {
        return error = "no symbol table", std::nullopt;
    }
    return object;
}

std::optional<std::vector<std::string>> read_exported_names(std::string_view bytes, std::string& error) {
    Elf elf;
    if (!parse_elf(bytes, elf, error)) return std::nullopt;
    const Section* dynsym = first_of_type(elf, kDynsym);
    if (!dynsym) return error = "no dynamic symbol table", std::nullopt;
    std::vector<Symbol> symbols;
    if (!read_table(elf, *dynsym, symbols, error)) return std::nullopt;
    std::vector<std::string> names;
    for (Symbol& s : symbols) {
        const bool visible = s.binding == Binding::Global || s.binding == Binding::Weak || s.binding == Binding::Unique;
        if (s.defined && visible && !s.name.empty()) names.push_back(std::move(s.name));
    }
    return names;
}

std::optional<std::vector<std::string>> read_archive_index(std::string_view bytes, std::string& error) {
    constexpr size_t kMagicSize = 8, kMemberHeaderSize = 60;
    if (bytes.size() < kMagicSize || bytes.compare(0, kMagicSize, "!<arch>\n") != 0) return error = "not an archive", std::nullopt;
    if (bytes.size() < kMagicSize + kMemberHeaderSize) return std::vector<std::string>{};  // an empty archive
    const std::string_view header = bytes.substr(kMagicSize, kMemberHeaderSize);
    const std::string_view member_name = header.substr(0, 16);
    const bool wide = member_name.compare(0, 7, "/SYM64/") == 0;
    if (!wide && member_name.compare(0, 2, "/ ") != 0) return error = "the archive has no symbol index (run ranlib)", std::nullopt;
    const std::string size_text(header.substr(48, 10));
    const uint64_t size = std::strtoull(size_text.c_str(), nullptr, 10);
    const uint64_t start = kMagicSize + kMemberHeaderSize;
    if (size > bytes.size() - start) return error = "the archive's symbol index lies past its end", std::nullopt;
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + start);
    const size_t width = wide ? 8 : 4;
    if (size < width) return error = "a malformed symbol index", std::nullopt;
    uint64_t count = 0;
    for (size_t i = 0; i < width; ++i) count = (count << 8) | p[i];
    if (count > (size - width) / width) return error = "a malformed symbol index", std::nullopt;
    const char* names = reinterpret_cast<const char*>(p) + width + count * width;
    const char* end = reinterpret_cast<const char*>(p) + size;
    std::vector<std::string> out;
    out.reserve(static_cast<size_t>(count));
    for (uint64_t i = 0; i < count && names < end; ++i) {
        const void* nul = std::memchr(names, '\0', static_cast<size_t>(end - names));
        if (!nul) return error = "a malformed symbol index", std::nullopt;
        out.emplace_back(names, static_cast<const char*>(nul));
        names = static_cast<const char*>(nul) + 1;
    }
    return out;
}

}  // namespace attnlab::elf
