#pragma once
// attnlab's emulator: CUDA's device surface (vector types, intrinsics). Under nvcc the toolkit's header takes this one's place.
#include "attnlab/cuda_device.hpp"
