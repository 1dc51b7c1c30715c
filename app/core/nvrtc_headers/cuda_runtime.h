#pragma once
#include <attnlab/cuda.hpp>
