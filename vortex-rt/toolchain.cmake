# CMake toolchain file for Vortex RV32 kernels: Debian's riscv64-unknown-elf-gcc with
# picolibc, code for rv32imaf / ilp32f (vortex-isa.md §6.2-6.3).
#   cmake -S <project> -B <build> -DCMAKE_TOOLCHAIN_FILE=vortex-rt/toolchain.cmake
# Then include(vortex-rt/cmake/VortexKernel.cmake) for vortex_add_kernel().
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)

set(VORTEX_TOOL_PREFIX "riscv64-unknown-elf-" CACHE STRING "Prefix of the RISC-V cross tools")
set(CMAKE_C_COMPILER ${VORTEX_TOOL_PREFIX}gcc)
set(CMAKE_CXX_COMPILER ${VORTEX_TOOL_PREFIX}g++)
set(CMAKE_ASM_COMPILER ${VORTEX_TOOL_PREFIX}gcc)
set(CMAKE_AR ${VORTEX_TOOL_PREFIX}ar CACHE FILEPATH "")
set(CMAKE_RANLIB ${VORTEX_TOOL_PREFIX}ranlib CACHE FILEPATH "")
set(CMAKE_OBJCOPY ${VORTEX_TOOL_PREFIX}objcopy CACHE FILEPATH "")
set(CMAKE_OBJDUMP ${VORTEX_TOOL_PREFIX}objdump CACHE FILEPATH "")

# No start files or OS: compiler checks build a static library instead of linking.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# Kept in step with src/vxsim/host/kernel_build.cpp (`vxsynth sim cc`).
set(VORTEX_ARCH_FLAGS "-march=rv32imaf -mabi=ilp32f -mcmodel=medany")
set(VORTEX_COMMON_FLAGS "--specs=picolibc.specs -g -Wall -ffunction-sections -fdata-sections -fno-tree-loop-distribute-patterns -fno-math-errno -fno-split-paths")
set(CMAKE_C_FLAGS_INIT "${VORTEX_ARCH_FLAGS} ${VORTEX_COMMON_FLAGS}")
set(CMAKE_CXX_FLAGS_INIT "${VORTEX_ARCH_FLAGS} ${VORTEX_COMMON_FLAGS} -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit")
set(CMAKE_ASM_FLAGS_INIT "${VORTEX_ARCH_FLAGS} --specs=picolibc.specs -g")
# The compile flags (with --specs=picolibc.specs) are on the link line too; linking with
# rv32imf (the later -march wins) selects picolibc's and libgcc's multilib with hardware multiply.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-march=rv32imf -mabi=ilp32f -nostartfiles -Wl,--gc-sections -Wl,--no-warn-rwx-segments")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
