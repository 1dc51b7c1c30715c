#pragma once
// attnlab's emulator: CUDA's runtime API and device surface (attnlab/cuda.hpp). Under nvcc the toolkit's header takes this one's place.
#include "attnlab/cuda.hpp"
