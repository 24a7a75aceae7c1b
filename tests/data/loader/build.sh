#!/bin/sh
# Rebuilds the committed test code objects. Needs clang-14, ld.lld-14, llvm-mc-14 and
# libclc-14 (/usr/lib/clc/amdgcn--amdhsa.bc). Run from this directory.
set -e
CL="clang-14 -target amdgcn-amd-amdhsa -mcpu=gfx700 -x cl -cl-std=CL1.2 -nogpulib -O2 \
 -Xclang -mlink-builtin-bitcode -Xclang /usr/lib/clc/amdgcn--amdhsa.bc -include clc/clc.h -cl-kernel-arg-info"
# clang-14 rejects -mcode-object-version=5 ("invalid integral value"); see v5 below.
for v in 2 3 4; do
  $CL -mcode-object-version=$v -c kernels.cl -o kernels_v$v.o
  ld.lld-14 -shared kernels_v$v.o -o kernels_v$v.hsaco
  rm -f kernels_v$v.o
done
# Code object v5: LLVM 14 emits it experimentally with -mllvm --amdhsa-code-object-version=5,
# but ld.lld-14 refuses to link ELF ABI version 3 ("unknown abi version"). So the object's
# e_ident[EI_ABIVERSION] is set to 2 (v4) for linking and back to 3 (v5) afterwards; nothing
# else in the file depends on that byte.
$CL -mllvm --amdhsa-code-object-version=5 -c kernels.cl -o kernels_v5.o
printf '\002' | dd of=kernels_v5.o bs=1 seek=8 conv=notrunc 2>/dev/null
ld.lld-14 -shared kernels_v5.o -o kernels_v5.hsaco
printf '\003' | dd of=kernels_v5.hsaco bs=1 seek=8 conv=notrunc 2>/dev/null
rm -f kernels_v5.o
# A gfx803 (not gfx7) object, for the wrong-target error test.
clang-14 -target amdgcn-amd-amdhsa -mcpu=gfx803 -x cl -cl-std=CL1.2 -nogpulib -O2 \
  -c wrong_target.cl -o wrong_target.o
ld.lld-14 -shared wrong_target.o -o wrong_target_gfx803.hsaco
rm -f wrong_target.o
MC=$(command -v llvm-mc-14 || command -v llvm-mc)
$MC -triple amdgcn-amd-amdhsa -mcpu=gfx700 -filetype=obj asm_kernels.s -o asm_kernels.o
ld.lld-14 -shared asm_kernels.o -o asm_kernels.hsaco
rm -f asm_kernels.o
