// attnlab-nvrtc: compiles one CUDA file with NVRTC (no GPU needed) so that
// ptxas reports each kernel's registers, shared memory and spills.
//
//   attnlab-nvrtc --arch sm_90 --name learner.cu [--header INCLUDE=PATH]...
//                 --source PATH
//
// Prints one JSON object on stdout and exits 0:
//   {"status": "ok" | "compile_error" | "unavailable", "version": "13.0",
//    "library": "/usr/local/cuda/lib64/libnvrtc.so.13", "result": "NVRTC_SUCCESS",
//    "cubin_bytes": 6368, "log": "ptxas info    : ..."}
// "unavailable": no libnvrtc was found (the log says where it looked).
// Exit code 2: a usage error or a file that cannot be read (stderr says which).
//
// Why a separate process: the learner's source is untrusted, and NVRTC on a
// pathological template can run for minutes or take gigabytes; attnlab runs
// this under attnlab-sandbox's limits and kills it when they are exceeded.
// NVRTC's C API is declared here, not taken from nvrtc.h, so attnlab builds
// without the CUDA toolkit.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/nvrtc/library.hpp"

namespace {

// The part of NVRTC's C API used here (nvrtc.h, CUDA 11.2 and later).
using nvrtcResult = int;
constexpr nvrtcResult kNvrtcSuccess = 0;
using nvrtcProgram = struct _nvrtcProgram*;
using CreateProgramFn = nvrtcResult (*)(nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*);
using DestroyProgramFn = nvrtcResult (*)(nvrtcProgram*);
using CompileProgramFn = nvrtcResult (*)(nvrtcProgram, int, const char* const*);
using GetSizeFn = nvrtcResult (*)(nvrtcProgram, size_t*);
using GetTextFn = nvrtcResult (*)(nvrtcProgram, char*);
using ErrorStringFn = const char* (*)(nvrtcResult);

struct NvrtcApi {
    CreateProgramFn create = nullptr;
    DestroyProgramFn destroy = nullptr;
    CompileProgramFn compile = nullptr;
    GetSizeFn log_size = nullptr;
    GetTextFn log = nullptr;
    GetSizeFn cubin_size = nullptr;
    ErrorStringFn error_string = nullptr;

    // "" when every function was found, else the first missing one.
    std::string bind(const attnlab::nvrtc::Library& lib) {
        const std::pair<const char*, void**> wanted[] = {
            {"nvrtcCreateProgram", reinterpret_cast<void**>(&create)},   {"nvrtcDestroyProgram", reinterpret_cast<void**>(&destroy)},
            {"nvrtcCompileProgram", reinterpret_cast<void**>(&compile)}, {"nvrtcGetProgramLogSize", reinterpret_cast<void**>(&log_size)},
            {"nvrtcGetProgramLog", reinterpret_cast<void**>(&log)},      {"nvrtcGetCUBINSize", reinterpret_cast<void**>(&cubin_size)},
            {"nvrtcGetErrorString", reinterpret_cast<void**>(&error_string)},
        };
        for (const auto& [name, slot] : wanted)
            if (!(*slot = lib.symbol(name))) return name;
        return "";
    }
};

struct Arguments {
    std::string arch = "sm_90";
    std::string name = "learner.cu";
    std::string source_path;
    std::vector<std::pair<std::string, std::string>> header_paths;  // include name -> file
};

[[noreturn]] void usage(const std::string& problem) {
    std::cerr << "attnlab-nvrtc: " << problem
              << "\nusage: attnlab-nvrtc --arch sm_90 --name learner.cu [--header INCLUDE=PATH]... --source PATH\n";
    std::exit(2);
}

Arguments parse_arguments(int argc, char** argv) {
    Arguments args;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (i + 1 >= argc) usage(flag + " needs a value");
        const std::string value = argv[++i];
        if (flag == "--arch") args.arch = value;
        else if (flag == "--name") args.name = value;
        else if (flag == "--source") args.source_path = value;
        else if (flag == "--header") {
            const size_t eq = value.find('=');
            if (eq == std::string::npos || eq == 0) usage("--header wants INCLUDE=PATH, got " + value);
            args.header_paths.emplace_back(value.substr(0, eq), value.substr(eq + 1));
        } else usage("unknown option " + flag);
    }
    if (args.source_path.empty()) usage("--source is required");
    return args;
}

std::string read_file_or_exit(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) usage("cannot read " + path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void print(const nlohmann::json& reply) {
    // Replacement, not an exception, if the log holds bytes that are not UTF-8.
    std::cout << reply.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

// Compiles and fills reply's status, result, cubin_bytes and log.
// The toolkit's own include directory beside the loaded libnvrtc (lib64/ or
// targets/<arch>/lib/ next to include/), when it holds the device headers a
// plain CUDA file may include and NVRTC does not build in: <cuda_fp16.h>,
// <cuda_bf16.h>, <mma.h>, <cooperative_groups.h>. Empty when there is none.
std::string toolkit_include_dir(const std::string& library_path) {
    std::error_code ec;
    const std::filesystem::path lib = std::filesystem::canonical(library_path, ec);
    if (ec) return "";
    const std::filesystem::path dir = lib.parent_path().parent_path() / "include";
    return std::filesystem::is_regular_file(dir / "cuda_fp16.h", ec) ? dir.string() : "";
}

void compile(const NvrtcApi& api, const Arguments& args, const std::string& include_dir, nlohmann::json& reply) {
    const std::string source = read_file_or_exit(args.source_path);
    std::vector<std::string> header_texts, header_names;
    for (const auto& [include, path] : args.header_paths) {
        header_names.push_back(include);
        header_texts.push_back(read_file_or_exit(path));
    }
    std::vector<const char*> texts, names;
    for (size_t i = 0; i < header_texts.size(); ++i) {
        texts.push_back(header_texts[i].c_str());
        names.push_back(header_names[i].c_str());
    }
    nvrtcProgram program = nullptr;
    nvrtcResult rc = api.create(&program, source.c_str(), args.name.c_str(), static_cast<int>(texts.size()), texts.data(), names.data());
    if (rc != kNvrtcSuccess) {
        reply["status"] = "compile_error";
        reply["result"] = api.error_string(rc);
        reply["log"] = std::string("nvrtcCreateProgram: ") + api.error_string(rc);
        return;
    }
    // A real sm_XX (not compute_XX) makes NVRTC run ptxas into a CUBIN, and
    // -v makes ptxas report every entry function's resources in the log.
    // -default-device: functions without __host__/__device__ are device
    // functions, so the learner's host launcher compiles (launches are
    // rewritten into no-op stubs before this).
    const std::string arch_option = "--gpu-architecture=" + args.arch;
    std::vector<const char*> options = {arch_option.c_str(), "--ptxas-options=-v", "-default-device", "-std=c++17"};
    // The named headers above still come first. CUDA 13 keeps libcu++ (cuda/std/..., which
    // <cooperative_groups.h> includes) in include/cccl.
    const std::string include_option = "--include-path=" + include_dir, cccl_option = "--include-path=" + include_dir + "/cccl";
    if (!include_dir.empty()) options.push_back(include_option.c_str());
    std::error_code ec;
    if (!include_dir.empty() && std::filesystem::is_directory(include_dir + "/cccl", ec)) options.push_back(cccl_option.c_str());
    rc = api.compile(program, static_cast<int>(options.size()), options.data());
    size_t log_bytes = 0, cubin_bytes = 0;
    std::string log;
    if (api.log_size(program, &log_bytes) == kNvrtcSuccess && log_bytes > 1) {
        log.resize(log_bytes);
        if (api.log(program, log.data()) != kNvrtcSuccess) log.clear();
        while (!log.empty() && log.back() == '\0') log.pop_back();
    }
    if (rc == kNvrtcSuccess) api.cubin_size(program, &cubin_bytes);
    api.destroy(&program);
    reply["status"] = rc == kNvrtcSuccess ? "ok" : "compile_error";
    reply["result"] = api.error_string(rc);
    reply["cubin_bytes"] = cubin_bytes;
    reply["log"] = log.empty() && rc != kNvrtcSuccess ? std::string(api.error_string(rc)) : log;
}

}  // namespace

int main(int argc, char** argv) {
    const Arguments args = parse_arguments(argc, argv);
    nlohmann::json reply = {{"status", "unavailable"}, {"version", ""}, {"library", ""}, {"log", ""}};
    const attnlab::nvrtc::Library lib = attnlab::nvrtc::Library::open();
    if (!lib.loaded()) {
        reply["log"] = "libnvrtc was not found\n" + lib.problem();  // first line: the reason; then each place tried
        print(reply);
        return 0;
    }
    reply["version"] = lib.version();
    reply["library"] = lib.path();
    NvrtcApi api;
    if (const std::string missing = api.bind(lib); !missing.empty()) {
        reply["log"] = "libnvrtc is too old (NVRTC 11.2 or later is needed)\n" + lib.path() + " has no " + missing;
        print(reply);
        return 0;
    }
    compile(api, args, toolkit_include_dir(lib.path()), reply);
    print(reply);
    return 0;
}
