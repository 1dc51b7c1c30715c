#pragma once
// CUDA's <cuda_pipeline.h> on attnlab's emulator: its primitives
// (__pipeline_memcpy_async, __pipeline_commit, __pipeline_wait_prior). The
// cuda::pipeline class of libcu++ is not emulated.
#include "cuda_pipeline_primitives.h"
