#pragma once
// The standard headers a learner's .cu gets without an #include of its own,
// the same with nvcc (attnlab/cuda.hpp's nvcc part) and on the emulator
// (cuda_include/attnlab/cuda_device.hpp), so one file compiles unchanged on
// both: assert, FLT_MAX, INT_MAX, printf, malloc, memcpy, CUDA's math,
// std::unique_ptr, std::min and std::max, std::numeric_limits.
//
// Every check of a learner's file pays for these: <string>, <vector>,
// <functional> and <stdexcept> stay out (each costs a compile about a tenth
// of a second; nvcc does not give a .cu file them either).
#include <cassert>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <math.h>
// Before the emulator defines __noinline__: libstdc++'s shared_ptr_base.h
// spells __attribute__((__noinline__)), which that macro would break in a
// learner's later #include <memory>. (<memory> costs a compile little.)
#include <memory>
// Which nvcc gives a .cu without an include too (they cost a compile almost nothing).
#include <algorithm>
#include <limits>
