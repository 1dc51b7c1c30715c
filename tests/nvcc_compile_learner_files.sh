#!/usr/bin/env bash
# Every learner-style .cu that attnlab's tests and course accept on the
# emulator is real CUDA: nvcc compiles each one unchanged (host and device
# code, sm_90) against attnlab/cuda.hpp (its nvcc part). Label cuda-nvcc. The fixture
# course's probes/ are left out: some are kernels a GPU must refuse (64 KiB of
# static shared memory), which is what their tests check; so are its attacks/,
# which are attacks on attnlab's harness (a definition of write(), a sanitizer
# hook), not CUDA a learner writes.
#   nvcc_compile_learner_files.sh NVCC SOURCE_DIR
set -u
nvcc=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
count=0
while IFS= read -r -d '' file; do
    count=$((count + 1))
    if ! "$nvcc" -std=c++17 -arch=sm_90 -I "$src/app/learner/include" \
            -c "$file" -o "$tmp/out.o" >"$tmp/log" 2>&1; then
        echo "nvcc rejects ${file#$src/}:"
        cat "$tmp/log"
        failed=$((failed + 1))
    fi
done < <(find "$src/tests/fixtures/cuda-course" "$src/exercises" -name '*.cu' -not -path '*/probes/*' -not -path '*/attacks/*' -print0 | sort -z)
echo "$((count - failed)) passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$count" -gt 0 ]
