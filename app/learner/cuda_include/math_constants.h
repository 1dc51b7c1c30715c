#pragma once
// attnlab's emulator: CUDA's device surface (vector types, intrinsics). Under nvcc the toolkit's header takes this one's place.
#include "attnlab/cuda_device.hpp"
#define CUDART_INF_F __builtin_inff()
#define CUDART_NAN_F __builtin_nanf("")
#define CUDART_PI_F 3.141592654f
#define CUDART_INF __builtin_inf()
