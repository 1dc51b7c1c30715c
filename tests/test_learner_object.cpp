// What a learner's object may define: the ELF reader on real objects made by
// g++ here, and the rules as tables over hand-made symbol lists.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "attnlab/core/check/elf_symbols.hpp"
#include "attnlab/core/check/learner_object.hpp"
#include "attnlab/core/check/unchecked_copy.hpp"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// A scratch folder for objects compiled by the tests.
struct Scratch {
    fs::path dir;
    Scratch() {
        char tmpl[] = "/tmp/attnlab-object-test-XXXXXX";
        dir = ::mkdtemp(tmpl);
    }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

// g++ compiles `code` into an object with `flags`; the object's bytes.
std::string compile(const Scratch& s, const std::string& code, const std::string& flags, const std::string& name = "x") {
    const fs::path src = s.dir / (name + ".cpp"), obj = s.dir / (name + ".o");
    std::ofstream(src) << code;
    const std::string cmd = "cd " + s.dir.string() + " && g++ -std=c++17 -O1 -c " + flags + " " + src.string() + " -o " + obj.string() + " 2>/dev/null";
    REQUIRE(std::system(cmd.c_str()) == 0);
    return read_all(obj);
}

const elf::Symbol* find(const elf::ObjectFile& o, const std::string& name) {
    for (const elf::Symbol& s : o.symbols)
        if (s.name == name) return &s;
    return nullptr;
}

elf::Symbol symbol(const std::string& name, elf::Binding binding, elf::SymbolType type = elf::SymbolType::Function, bool in_code = true,
                   uint64_t value = 0) {
    elf::Symbol s;
    s.name = name;
    s.binding = binding;
    s.type = type;
    s.defined = true;
    s.in_code = in_code && type == elf::SymbolType::Function;
    s.section = 1;
    s.value = value;
    return s;
}

}  // namespace

TEST_CASE("read_object: the symbols g++ writes, with their binding, type and section") {
    Scratch s;
    const std::string bytes = compile(s,
                                      "#include <vector>\n"
                                      "int counter = 3;\n"
                                      "static float scale(float x) { return x * counter; }\n"
                                      "float entry(const std::vector<float>& v) { return scale(v.at(0)); }\n"
                                      "extern \"C\" long write(int, const void*, unsigned long) { return 0; }\n",
                                      "");
    std::string error;
    const auto object = elf::read_object(bytes, error);
    REQUIRE_MESSAGE(object, error);
    const elf::Symbol* entry = find(*object, "_Z5entryRKSt6vectorIfSaIfEE");
    REQUIRE(entry);
    CHECK(entry->binding == elf::Binding::Global);
    CHECK(entry->type == elf::SymbolType::Function);
    CHECK(entry->in_code);
    const elf::Symbol* counter = find(*object, "counter");
    REQUIRE(counter);
    CHECK(counter->type == elf::SymbolType::Object);
    CHECK_FALSE(counter->in_code);
    const elf::Symbol* write = find(*object, "write");
    REQUIRE(write);
    CHECK(write->defined);
    CHECK(write->binding == elf::Binding::Global);
    const elf::Symbol* at = nullptr;  // std::vector::at throws through libstdc++: an undefined reference
    for (const elf::Symbol& sym : object->symbols)
        if (sym.name.find("__throw_out_of_range") != std::string::npos) at = &sym;
    REQUIRE(at);
    CHECK_FALSE(at->defined);
}

TEST_CASE("read_object: a truncated or foreign file is an error, never a read past its end") {
    Scratch s;
    const std::string bytes = compile(s, "int f(int x) { return x + 1; }\n", "");
    std::string error;
    for (size_t cut : {size_t{0}, size_t{3}, size_t{40}, size_t{64}, bytes.size() / 2, bytes.size() - 1}) {
        error.clear();
        const auto object = elf::read_object(std::string_view(bytes).substr(0, cut), error);
        if (!object) CHECK_FALSE(error.empty());
    }
    CHECK_FALSE(elf::read_object("#!/bin/sh\necho hi\n", error));
    CHECK(error == "not an ELF file");
    // Every byte of the header flipped in turn: an answer or an error, no crash.
    for (size_t i = 0; i < 64; ++i) {
        std::string bad = bytes;
        bad[i] = static_cast<char>(bad[i] ^ 0xff);
        (void)elf::read_object(bad, error);
    }
}

TEST_CASE("read_exported_names and read_archive_index: libc's write, an archive's members' names") {
    std::string error;
    const std::string libc = read_all("/lib/x86_64-linux-gnu/libc.so.6");
    if (libc.empty()) return;  // another architecture: the reader is covered above
    const auto names = elf::read_exported_names(libc, error);
    REQUIRE_MESSAGE(names, error);
    CHECK(std::find(names->begin(), names->end(), "write") != names->end());
    CHECK(std::find(names->begin(), names->end(), "memcpy") != names->end());

    Scratch s;
    compile(s, "int alpha(int x) { return x; }\nint beta = 2;\n", "", "a");
    compile(s, "extern \"C\" void gamma_fn() {}\n", "", "b");
    REQUIRE(std::system(("cd " + s.dir.string() + " && ar rcs lib.a a.o b.o").c_str()) == 0);
    const auto index = elf::read_archive_index(read_all(s.dir / "lib.a"), error);
    REQUIRE_MESSAGE(index, error);
    CHECK(std::find(index->begin(), index->end(), "_Z5alphai") != index->end());
    CHECK(std::find(index->begin(), index->end(), "beta") != index->end());
    CHECK(std::find(index->begin(), index->end(), "gamma_fn") != index->end());
    CHECK_FALSE(elf::read_archive_index("!<arch>\n/               0           0     0     0       999999    `\n", error));
}

TEST_CASE("mangled_namespace: the first namespace of a C++ name") {
    struct Row {
        const char* name;
        const char* ns;
    } rows[] = {
        {"_ZNK7attnlab6Tensor4sizeEv", "attnlab"},
        {"_ZN7attnlab6detail11cuda_mallocEPPvmmPKc", "attnlab"},
        {"_ZNSt6vectorIfSaIfEED2Ev", "std"},
        {"_ZSt4cout", "std"},
        {"_ZNSaIcED1Ev", "std"},
        {"_ZN9__gnu_cxx13new_allocatorIfE8allocateEmPKv", "__gnu_cxx"},
        {"_Z11split_headsRKN7attnlab6TensorEi", ""},  // a global function that takes attnlab's Tensor
        {"_ZL6helperPfi", ""},
        {"_ZN5mylib4tileEv", "mylib"},
        {"_ZZN7attnlab3fooEvE1x", "attnlab"},         // a static inside attnlab::foo()
        {"_ZGVZN7attnlab3fooEvE1x", "attnlab"},       // its guard
        {"_ZTVN7attnlab4BaseE", "attnlab"},           // a vtable
        {"_ZThn16_N7attnlab4Both1gEPf", "attnlab"},   // a thunk
        {"_Znwm", ""},                                // operator new: global
        {"write", ""},
    };
    for (const Row& r : rows) CHECK_MESSAGE(mangled_namespace(r.name) == r.ns, r.name);
}

TEST_CASE("learner_object_problems: which definitions an exercise file may make") {
    using B = elf::Binding;
    using K = ObjectProblemKind;
    LibraryNames libraries = {{"write", "libc.so.6"}, {"_Znwm", "libstdc++.so.6"}, {"main", "libattnlab_learner.a"},
                              {"_ZNK7attnlab6Tensor4sizeEv", "libattnlab_learner.a"}, {"memcpy", "libc.so.6"}};
    ObjectRules rules;
    rules.library_names = &libraries;
    struct Row {
        const char* what;
        elf::Symbol symbol;
        std::vector<ObjectProblem> expected;
    } rows[] = {
        {"the entry point", symbol("_Z11split_headsRKN7attnlab6TensorEi", B::Global), {}},
        {"a kernel", symbol("_Z11mask_kernelPfi", B::Global), {}},
        {"a static helper", symbol("_ZL6helperPfi", B::Local), {}},
        {"a global variable of the learner's", symbol("scale", B::Global, elf::SymbolType::Object), {}},
        {"an inline function of attnlab's header", symbol("_ZNK7attnlab6Tensor4sizeEv", B::Weak), {}},
        {"a template instantiated from <vector>", symbol("_ZNSt6vectorIfSaIfEED2Ev", B::Weak), {}},
        {"libc's write", symbol("write", B::Global), {{K::LibraryName, "write", "libc.so.6"}}},
        {"a weak memcpy still replaces libc's", symbol("memcpy", B::Weak), {{K::LibraryName, "memcpy", "libc.so.6"}}},
        {"operator new", symbol("_Znwm", B::Global), {{K::LibraryName, "_Znwm", "libstdc++.so.6"}}},
        {"main", symbol("main", B::Global), {{K::LibraryName, "main", "libattnlab_learner.a"}}},
        {"a sanitizer hook", symbol("__tsan_write4", B::Global), {{K::ReservedName, "__tsan_write4", ""}}},
        {"a reserved C name", symbol("_start", B::Weak), {{K::ReservedName, "_start", ""}}},
        {"a strong function in namespace attnlab", symbol("_ZN7attnlab6detail4sendEv", B::Global), {{K::ReservedName, "_ZN7attnlab6detail4sendEv", ""}}},
        {"a strong function in namespace std", symbol("_ZSt4swapRfS_", B::Global), {{K::ReservedName, "_ZSt4swapRfS_", ""}}},
        {"the compiler's own pointer to the C++ personality routine", symbol("DW.ref.__gxx_personality_v0", B::Weak, elf::SymbolType::Object), {}},
        {"an IFUNC runs at load time", symbol("pick", B::Global, elf::SymbolType::Ifunc), {{K::RunsBeforeHarness, "pick", ""}}},
    };
    for (const Row& r : rows) {
        elf::ObjectFile object;
        object.symbols = {r.symbol};
        CHECK_MESSAGE(learner_object_problems(object, rules) == r.expected, r.what);
    }
    elf::ObjectFile early;
    early.section_names = {"", ".text", ".preinit_array", ".init_array"};
    CHECK(learner_object_problems(early, rules) == std::vector<ObjectProblem>{{K::RunsBeforeHarness, ".preinit_array", ""}});
}

TEST_CASE("learner_object_problems: a function the sanitizer's pass did not run on is refused, with its aliases and cold parts") {
    using B = elf::Binding;
    ObjectRules rules;
    rules.require_instrumented = true;
    rules.instrumented = {"_Z6kernelPf", "_ZN3FooC2Ev"};
    elf::ObjectFile object;
    object.symbols = {symbol("_Z6kernelPf", B::Global, elf::SymbolType::Function, true, 0),
                      symbol("_Z6kernelPf.cold", B::Local, elf::SymbolType::Function, true, 64),
                      symbol("_ZN3FooC2Ev", B::Weak, elf::SymbolType::Function, true, 128),
                      symbol("_ZN3FooC1Ev", B::Weak, elf::SymbolType::Function, true, 128),  // C1 is an alias of C2
                      symbol("_ZThn8_N3Foo1gEv", B::Weak, elf::SymbolType::Function, true, 192),
                      symbol("_Z6hiddenPf", B::Global, elf::SymbolType::Function, true, 256),
                      symbol("_ZL6helperPf", B::Local, elf::SymbolType::Function, true, 320)};
    const std::vector<ObjectProblem> problems = learner_object_problems(object, rules);
    CHECK(problems == std::vector<ObjectProblem>{{ObjectProblemKind::NotInstrumented, "_Z6hiddenPf", ""},
                                                 {ObjectProblemKind::NotInstrumented, "_ZL6helperPf", ""}});
}

TEST_CASE("functions_in_tree_dump: the assembler name, whatever the name as written holds") {
    const std::string dump =
        ";; Function attnlab::detail::call_body<attnlab::detail::KernelLaunch<void (*)(const float*, int)>::operator()(const float*, int) "
        "const::<lambda()> > (_ZN7attnlab6detail9call_bodyIZNKS0_12KernelLaunchIPFvPKfiEEclES4_iEUlvE_EEvPKv, funcdef_no=2525, "
        "decl_uid=43973, cgraph_uid=883, symbol_order=1396)\n"
        "\n"
        "void f (float * p)\n"
        ";; Function _sub_I_00099_0 (_sub_I_00099_0, funcdef_no=2553, decl_uid=44531, cgraph_uid=935, symbol_order=1512) (executed once)\n";
    CHECK(functions_in_tree_dump(dump) ==
          std::unordered_set<std::string>{"_ZN7attnlab6detail9call_bodyIZNKS0_12KernelLaunchIPFvPKfiEEclES4_iEUlvE_EEvPKv", "_sub_I_00099_0"});
}

TEST_CASE("functions_in_tree_dump: g++'s tsan dump lists exactly the functions its pass ran on") {
    Scratch s;
    const std::string code =
        "__attribute__((no_sanitize_thread)) void hidden(float* d) { d[3] = 1.0f; }\n"
        "[[gnu::no_sanitize(\"thread\")]] static void hidden2(float* d) { d[4] = 1.0f; }\n"
        "__attribute__((optimize(\"O0\"))) void slow(float* d) { d[1] = 2.0f; hidden2(d); }\n"
        "struct S { S() : v(1) {} virtual ~S() {} int v; };\n"
        "S make() { return S(); }\n"
        "void kernel(float* d) { d[0] = 1.0f; }\n";
    const std::string bytes = compile(s, code, "-fsanitize=thread -fdump-tree-tsan=" + (s.dir / "d1").string() + " -fdump-tree-tsan0=" + (s.dir / "d0").string());
    const std::unordered_set<std::string> ran = [&] {
        auto a = functions_in_tree_dump(read_all(s.dir / "d1"));
        for (const std::string& n : functions_in_tree_dump(read_all(s.dir / "d0"))) a.insert(n);
        return a;
    }();
    CHECK(ran.count("_Z6kernelPf"));
    CHECK(ran.count("_Z4slowPf"));  // optimize("O0") goes through the -O0 pipeline's pass
    CHECK_FALSE(ran.count("_Z6hiddenPf"));
    std::string error;
    const auto object = elf::read_object(bytes, error);
    REQUIRE(object);
    ObjectRules rules;
    rules.require_instrumented = true;
    rules.instrumented = ran;
    std::vector<std::string> refused;
    for (const ObjectProblem& p : learner_object_problems(*object, rules)) refused.push_back(p.symbol);
    std::sort(refused.begin(), refused.end());
    CHECK(refused == std::vector<std::string>{"_Z6hiddenPf", "_ZL7hidden2Pf"});
}

TEST_CASE("plan_unchecked_copy: which unchecked copies may be linked, what is renamed and paired") {
    using B = elf::Binding;
    using K = elf::SymbolType;
    auto object_of = [](std::vector<elf::Symbol> symbols) {
        elf::ObjectFile o;
        o.section_names = {"", ".text", ".bss", ".rodata"};
        o.symbols = std::move(symbols);
        return o;
    };
    auto in_section = [](elf::Symbol s, uint32_t section) {
        s.section = section;
        return s;
    };
    const elf::Symbol kernel = symbol("_Z6kernelPf", B::Global), launcher = symbol("_Z7launchRN7attnlab12DeviceTensorE", B::Global);
    const elf::ObjectFile checked = object_of({kernel, launcher, symbol("_ZL6helperv", B::Local)});
    struct Row {
        const char* what;
        std::vector<elf::Symbol> unchecked;
        std::string refused;
        size_t renames, pairs;
    } rows[] = {
        {"kernels and the launcher: renamed and paired", {kernel, launcher}, "", 2, 2},
        {"a static helper stays as it is", {kernel, symbol("_ZL6helperv", B::Local)}, "", 1, 1},
        {"an inline function only the copy emitted: renamed, not paired", {kernel, symbol("_ZN4impl3sumEv", B::Weak)}, "", 2, 1},
        {"attnlab's own __shared__ claim, kept per copy",
         {kernel, in_section(symbol("_ZZN7attnlab3emu3raw15shared_variableIA16_fZ1kvEUlvE_EERT_PKcT0_mE1p", B::Local, K::Object), 2)}, "", 1, 1},
        {"a weak static of an inline function: merged with the checked one", {kernel, in_section(symbol("_ZZ4oncevE1n", B::Weak, K::Object), 2)}, "", 1, 1},
        {"a writable static of the learner's: each copy would keep its own",
         {kernel, in_section(symbol("_ZL8launches", B::Local, K::Object), 2)}, "keeps_writable_data", 0, 0},
        {"a read-only table of the learner's is fine", {kernel, in_section(symbol("_ZL5table", B::Local, K::Object), 3)}, "", 1, 1},
        {"a global variable would clash with the checked object's", {kernel, in_section(symbol("counter", B::Global, K::Object), 2)},
         "defines_global_data", 0, 0},
        {"an IFUNC", {symbol("pick", B::Global, K::Ifunc)}, "runs_at_start", 0, 0},
    };
    for (const Row& r : rows) {
        const UncheckedCopyPlan plan = plan_unchecked_copy(checked, object_of(r.unchecked));
        CHECK_MESSAGE(plan.refused == r.refused, r.what);
        CHECK_MESSAGE(plan.renames.size() == r.renames, r.what);
        CHECK_MESSAGE(plan.pairs.size() == r.pairs, r.what);
    }
    elf::ObjectFile constructor = object_of({kernel});
    constructor.section_names.push_back(".init_array");
    CHECK(plan_unchecked_copy(checked, constructor).refused == "runs_at_start");
    const UncheckedCopyPlan plan = plan_unchecked_copy(checked, object_of({kernel}));
    CHECK(redefine_symbols_text(plan) == "_Z6kernelPf attnlab_unchecked._Z6kernelPf\n");
    CHECK(copies_table_assembly(plan).find("\t.quad _Z6kernelPf\n\t.quad attnlab_unchecked._Z6kernelPf\n") != std::string::npos);
}
