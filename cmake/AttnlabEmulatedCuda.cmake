# The flags that put plain CUDA on attnlab's CPU emulator, in one place: a
# learner's .cu (the runner adds them: compiler.cpp reads this list from the
# generated build_config.hpp) and attnlab's own kernels (kernels/) are
# compiled the same way, so every rule of the emulator's checks and counters
# is written once (app/emu/src/raw_access.cpp) and applies to both.
#
# Why each flag (app/emu/include/attnlab/emu/raw_memory.hpp tells the whole story):
#   -fsanitize=thread           every load and store calls attnlab's hooks
#                               (sanitizer_hooks.cpp; libtsan is never linked)
#   --param=tsan-instrument-func-entry-exit=0   no hook at each function's entry and exit
#   --param=tsan-distinguish-volatile=1   a volatile access has hooks of its own: it is
#                               always issued, where a repeated shared load is
#                               served from a register as nvcc keeps it
#   -fsanitize=bounds -fno-sanitize-recover=bounds   arrays of known size (`float acc[32]`)
#   -fnon-call-exceptions       a fault may unwind out of a hook
#   -g1                         the lines faults name
#   -fno-tree-vectorize -fno-tree-sra   a thread's loads stay the width it wrote
#                               them, as nvcc keeps them: no vectorising, and no
#                               scalar replacement of aggregates, which would split
#                               `float4 x = p[i]` into four 4-byte loads that no
#                               misaligned float4 could fail
#                               (-fsanitize=alignment,null would check every
#                               pointer's type instead, for a sixth of the compile)
#   -O2                         the emulated kernel runs at a useful speed
#   -fno-thread-jumps           one store in the source stays one store: jump
#                               threading copies `w[i] = c ? a : b;` into both
#                               arms of an earlier `if (c)`, two instructions
#                               where nvcc emits one, and the counters (which
#                               pair a warp's lanes by instruction) would see
#                               two half-empty requests
set(ATTNLAB_EMU_CUDA_FLAGS
    -fsanitize=thread --param=tsan-instrument-func-entry-exit=0 --param=tsan-distinguish-volatile=1 -fsanitize=bounds -fno-sanitize-recover=bounds
    -fnon-call-exceptions -g1 -fno-tree-vectorize -fno-tree-sra -O2 -fno-thread-jumps)
string(JOIN " " ATTNLAB_EMU_CUDA_FLAGS_STRING ${ATTNLAB_EMU_CUDA_FLAGS})

# The flags above that serve the checks alone: an exercise with sampled cases
# also compiles the learner's file without them (its unchecked copy, which
# runs the blocks a sampled launch does not check at native speed:
# app/core/src/check/unchecked_copy.cpp), keeping -O2 and
# -fnon-call-exceptions, and defining __SANITIZE_THREAD__ as the checked
# build does, so no #if can tell the two builds apart. -fsanitize=bounds goes
# too: its compare per index stops a loop from vectorising. The copy has a
# precompiled header of its own, built with its own flags (g++ stops with an
# internal error when a header precompiled with bounds checks meets a
# compile without them).
set(ATTNLAB_EMU_CUDA_CHECK_ONLY_FLAGS
    -fsanitize=thread --param=tsan-instrument-func-entry-exit=0 --param=tsan-distinguish-volatile=1 -fsanitize=bounds -fno-sanitize-recover=bounds
    -g1 -fno-tree-vectorize -fno-tree-sra -fno-thread-jumps)
string(JOIN " " ATTNLAB_EMU_CUDA_CHECK_ONLY_FLAGS_STRING ${ATTNLAB_EMU_CUDA_CHECK_ONLY_FLAGS})

# What the unchecked copy adds for speed alone (its values are still compared;
# no check runs in it): a loop's float sums may be reassociated, so a dot
# product of hd terms vectorises into several partial sums instead of one
# chain of dependent adds (4 cycles each); no NaN or infinity is assumed away
# (no -ffinite-math-only), so a softmax that overflows still overflows. Its
# blocks may differ from the checked blocks of the same code in the last bits,
# as a GPU's fused multiply-adds differ from both.
set(ATTNLAB_EMU_CUDA_UNCHECKED_FLAGS
    -fassociative-math -fno-signed-zeros -fno-trapping-math -fvect-cost-model=dynamic)
string(JOIN " " ATTNLAB_EMU_CUDA_UNCHECKED_FLAGS_STRING ${ATTNLAB_EMU_CUDA_UNCHECKED_FLAGS})

# Compile SOURCES as emulated CUDA. Only their compile lines change: the link
# never asks for libtsan, whose hooks attnlab_cuda_emu defines itself.
function(attnlab_emulated_cuda_sources)
  set_source_files_properties(${ARGN} PROPERTIES COMPILE_OPTIONS "${ATTNLAB_EMU_CUDA_FLAGS}")
endfunction()

# An OBJECT library NAME of plain-CUDA FILES (.cu) built for the emulator, the
# way a learner's .cu is: the build tool attnlab-rewrite-cuda (kernels/) gives
# each file the learner's rewrite of `__shared__` (with a #line, so faults and
# __LINE__ name the .cu's own lines), then it is compiled as emulated CUDA
# against the learners' device header. attnlab's kernels (kernels/), the
# emulator's test kernels (tests/) and its benchmark's (bench/) are built so.
# A consumer links NAME, and attnlab_cuda_emu for the hooks.
function(attnlab_emulated_cuda_objects name)
  set(_rewritten)
  foreach(_file ${ARGN})
    get_filename_component(_source ${_file} ABSOLUTE)
    get_filename_component(_stem ${_file} NAME_WE)
    file(RELATIVE_PATH _shown ${PROJECT_SOURCE_DIR} ${_source})
    set(_out ${CMAKE_CURRENT_BINARY_DIR}/emulated/${_stem}.cpp)
    add_custom_command(OUTPUT ${_out}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/emulated
      COMMAND attnlab-rewrite-cuda ${_source} ${_out}
      DEPENDS attnlab-rewrite-cuda ${_source}
      COMMENT "attnlab: ${_shown} rewritten for the emulator" VERBATIM)
    list(APPEND _rewritten ${_out})
  endforeach()
  add_library(${name} OBJECT ${_rewritten})
  attnlab_emulated_cuda_sources(${_rewritten})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/app/learner/cuda_include
                             ${PROJECT_SOURCE_DIR}/app/learner/include ${PROJECT_SOURCE_DIR}/app/emu/include
                             ${PROJECT_SOURCE_DIR}/app/common/include)
endfunction()
