#pragma once
// The kernels of the emulator's tests (test_cuda_emulator.cpp), written as
// plain CUDA in emu_test_kernels.cu and built as a learner's .cu is built
// (attnlab_emulated_cuda_objects: the `__shared__` rewrite, the sanitizer
// hooks), so the tests see the emulator's one instrumented path. Host code
// launches them with attnlab::emu::launch(name, kernel, grid, block, smem, args...).
namespace emu_test {

extern int g_line;  // a kernel stores __LINE__ here on the line under test (the .cu's own lines)

void rotate_through_shared(float* out, const float* in);
void barrier_in_branch(float* out);
void early_return_then_barrier(float* out, int n);
void two_different_barriers(float* out);
void barrier_votes(int* out);
void shuffles(int* out);
void shuffle_after_exit(float* out);
void atomics(int* counter, int* max_int, float* max_float, float* sum, int* cas_winner);
void shared_atomics(int* out);
void copy_n(float* out, const float* in, int n);
void out_of_bounds_in_block(float* out, int bad_block);
void async_reverse(float* out, const float* in, int mode);
void shared_out_of_bounds(float* out);
void shared_out_of_bounds_through_pointer(float* out);
void dynamic_shared_out_of_bounds(float* out);
void racy_neighbour_read(float* out, bool with_barrier);
void warp_exchange(float* out, bool with_syncwarp);
void read_unwritten_global(float* out, const float* in);
void read_unwritten_shared(float* out);
void strided_load(float* out, const float* in, int stride);
void shared_pattern(float* out, int stride);
void causal_rows(float* out, int T, int hd);
void diverged_two_way(float* out);
void read_head_slice(float* out, const float* in, int T, int hd, int head_offset, int row_stride);
void endless(float* out, int n);
void throws(float* out);
void write_block_and_thread(int* out);
void touch(float* out);
void barrier_only();
void read_then_syncwarp_then_write(float* out);
void xor_sub_warp(int* out);
void broadcast_then_write(float* out, int writer);
void two_readers_then_write(float* out, int first, bool with_syncwarp);
void split_lane_groups(int* out, bool overlap);

}  // namespace emu_test
