#!/bin/sh
# Rebuilds the committed test code objects. Needs clang-14, ld.lld-14, llvm-mc-14 and
# libclc-14 (/usr/lib/clc/amdgcn--amdhsa.bc). Run from this directory.
set -e
CL="clang-14 -target amdgcn-amd-amdhsa -mcpu=gfx700 -x cl -cl-std=CL1.2 -nogpulib -O2 \
 -Xclang -mlink-builtin-bitcode -Xclang /usr/lib/clc/amdgcn--amdhsa.bc -include clc/clc.h -cl-kernel-arg-info"
# clang-14 rejects -mcode-object-version=5 ("invalid integral value"), so v5 is not built.
for v in 2 3 4; do
  $CL -mcode-object-version=$v -c kernels.cl -o kernels_v$v.o
  ld.lld-14 -shared kernels_v$v.o -o kernels_v$v.hsaco
  rm -f kernels_v$v.o
done
# A gfx803 (not gfx7) object, for the wrong-target error test.
clang-14 -target amdgcn-amd-amdhsa -mcpu=gfx803 -x cl -cl-std=CL1.2 -nogpulib -O2 \
  -c wrong_target.cl -o wrong_target.o
ld.lld-14 -shared wrong_target.o -o wrong_target_gfx803.hsaco
rm -f wrong_target.o
MC=$(command -v llvm-mc-14 || command -v llvm-mc)
$MC -triple amdgcn-amd-amdhsa -mcpu=gfx700 -filetype=obj asm_kernels.s -o asm_kernels.o
ld.lld-14 -shared asm_kernels.o -o asm_kernels.hsaco
rm -f asm_kernels.o
