// attnlab command-line entry: everything lives in commands.cpp and the core.
#include <string>
#include <vector>

#include "commands.hpp"

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    return attnlab::cli::run(args);
}
