# The one list of RISC-V kernel flags. Read by vortex-rt/toolchain.cmake (CMake kernel builds)
# and by src/vxsim/host (`vxsynth sim cc`, through a generated header), so both build kernels
# the same way. Two kernel compilers:
#   clang (default): Debian's clang-14 for riscv32 with the vortex-divergence pass plugin
#                    (vortex-rt/llvm), which inserts split/join and loop predication as
#                    Vortex's own LLVM does; floating-point contraction within an expression
#                    only (-ffp-contract=on, clang's and therefore Vortex's default).
#   gcc:             Debian's riscv64-unknown-elf-gcc; no divergence handling (kernels must be
#                    warp-uniform or use vx_split/vx_join by hand).
# Both compile against picolibc's headers and link with the gcc driver (picolibc, libgcc).
set(VORTEX_CLANG_VERSION 14)
set(VORTEX_PICOLIBC_INCLUDE /usr/lib/picolibc/riscv64-unknown-elf/include)
set(VORTEX_KERNEL_ARCH_FLAGS -march=rv32imaf -mabi=ilp32f -mcmodel=medany)
# -fno-math-errno: sqrtf and friends become single instructions instead of a call guarded by
# an errno branch.
set(VORTEX_KERNEL_COMMON_FLAGS -g -Wall -ffunction-sections -fdata-sections -fno-math-errno)
# -disable-loop-idiom-all: loops stay loops instead of calls into picolibc's memset/memcpy,
# which are GCC-built and branch per lane (Vortex's regression Makefiles pass the same).
set(VORTEX_KERNEL_CLANG_FLAGS --target=riscv32-unknown-elf -isystem ${VORTEX_PICOLIBC_INCLUDE} -ffp-contract=on
    -mllvm -disable-loop-idiom-all)
# -fno-split-paths: GCC -O3's path splitting copies a loop latch, and a hand-written vx_join
# with it, into both arms of an if; the verifier would refuse the result.
set(VORTEX_KERNEL_GCC_FLAGS --specs=picolibc.specs -fno-tree-loop-distribute-patterns -fno-split-paths)
set(VORTEX_KERNEL_CXX_FLAGS -std=gnu++17 -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit)
# Linking selects picolibc's and libgcc's rv32imf multilib (hardware multiply); the rv32imaf
# compile flags alone would pick the rv32iaf one.
set(VORTEX_KERNEL_LINK_FLAGS -march=rv32imf -mabi=ilp32f --specs=picolibc.specs -nostartfiles -Wl,--gc-sections
    -Wl,--no-warn-rwx-segments)
