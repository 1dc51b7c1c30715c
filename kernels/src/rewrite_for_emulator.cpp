// Build tool: a kernel .cu as the emulator compiles it.
//   attnlab-rewrite-cuda IN.cu OUT.cpp
// The same rewrite a learner's .cu gets before it is compiled for the
// emulator (cuda_source.cpp: each `__shared__` declaration becomes a checked
// variable of the block's shared memory), line for line, with a #line so
// that faults and the debug information name the .cu itself. A construct the
// rewrite cannot read stops the build, as it refuses a learner's file.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "attnlab/emu/cuda_source.hpp"

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: attnlab-rewrite-cuda IN.cu OUT.cpp\n";
        return 2;
    }
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) {
        std::cerr << argv[1] << ": cannot read\n";
        return 1;
    }
    std::ostringstream text;
    text << in.rdbuf();
    const std::string source = text.str();
    const auto unread = attnlab::cuda_source::unread_parts(source);
    for (const auto& part : unread)
        std::cerr << argv[1] << ":" << part.line << ": the emulator's rewrite cannot read this "
                  << (part.construct == attnlab::UnreadConstruct::Launch ? "launch" : "__shared__ declaration") << "\n";
    if (!unread.empty()) return 1;
    const std::string tmp = std::string(argv[2]) + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary);
        out << "#line 1 \"" << argv[1] << "\"\n" << attnlab::cuda_source::for_emulator(source);
        if (!out) {
            std::cerr << tmp << ": cannot write\n";
            return 1;
        }
    }
    return std::rename(tmp.c_str(), argv[2]) == 0 ? 0 : 1;
}
