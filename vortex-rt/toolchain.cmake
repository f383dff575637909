# CMake toolchain file for Vortex RV32 kernels (rv32imaf / ilp32f, vortex-isa.md §6.2-6.3):
# Debian's clang with the vortex-divergence plugin (default) or riscv64-unknown-elf-gcc, with
# picolibc. The flags come from cmake/VortexFlags.cmake, shared with `vxsynth sim cc`.
#   cmake -S <project> -B <build> -DCMAKE_TOOLCHAIN_FILE=vortex-rt/toolchain.cmake
#         [-DVORTEX_KERNEL_COMPILER=clang|gcc] [-DVORTEX_DIVERGENCE_PLUGIN=<build>/vortex-rt/llvm/VortexDivergence.so]
# Then include(vortex-rt/cmake/VortexKernel.cmake) for vortex_add_kernel().
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)
include(${CMAKE_CURRENT_LIST_DIR}/cmake/VortexFlags.cmake)

set(VORTEX_KERNEL_COMPILER "clang" CACHE STRING "Kernel compiler: clang (with divergence handling) or gcc")
set(VORTEX_DIVERGENCE_PLUGIN "" CACHE FILEPATH "The vortex-divergence pass plugin (clang only)")
set(VORTEX_TOOL_PREFIX "riscv64-unknown-elf-" CACHE STRING "Prefix of the RISC-V cross tools")
# Try-compile projects see only these variables.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES VORTEX_KERNEL_COMPILER VORTEX_DIVERGENCE_PLUGIN VORTEX_TOOL_PREFIX)

list(JOIN VORTEX_KERNEL_ARCH_FLAGS " " arch)
list(JOIN VORTEX_KERNEL_COMMON_FLAGS " " common)
list(JOIN VORTEX_KERNEL_CXX_FLAGS " " cxx)
list(JOIN VORTEX_KERNEL_LINK_FLAGS " " link)
if(VORTEX_KERNEL_COMPILER STREQUAL "clang")
  set(CMAKE_C_COMPILER clang-${VORTEX_CLANG_VERSION})
  set(CMAKE_CXX_COMPILER clang++-${VORTEX_CLANG_VERSION})
  # Assembly through GNU as: clang 14's assembler writes a .S file's line table with fixed
  # address steps that linker relaxation invalidates (source lines would name the wrong file).
  set(CMAKE_ASM_COMPILER ${VORTEX_TOOL_PREFIX}gcc)
  list(JOIN VORTEX_KERNEL_GCC_FLAGS " " asm_extra)
  list(JOIN VORTEX_KERNEL_CLANG_FLAGS " " extra)
  set(extra "${extra} -Wno-unused-command-line-argument")
  if(VORTEX_DIVERGENCE_PLUGIN)
    set(extra "${extra} -fpass-plugin=${VORTEX_DIVERGENCE_PLUGIN}")
  endif()
  # clang compiles; the gcc driver links (it knows picolibc's and libgcc's multilibs).
  set(CMAKE_C_LINK_EXECUTABLE "${VORTEX_TOOL_PREFIX}gcc <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")
  set(CMAKE_CXX_LINK_EXECUTABLE "${VORTEX_TOOL_PREFIX}gcc <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")
elseif(VORTEX_KERNEL_COMPILER STREQUAL "gcc")
  set(CMAKE_C_COMPILER ${VORTEX_TOOL_PREFIX}gcc)
  set(CMAKE_CXX_COMPILER ${VORTEX_TOOL_PREFIX}g++)
  set(CMAKE_ASM_COMPILER ${VORTEX_TOOL_PREFIX}gcc)
  list(JOIN VORTEX_KERNEL_GCC_FLAGS " " extra)
  set(asm_extra "${extra}")
else()
  message(FATAL_ERROR "VORTEX_KERNEL_COMPILER: expected clang or gcc, got '${VORTEX_KERNEL_COMPILER}'")
endif()
set(CMAKE_AR ${VORTEX_TOOL_PREFIX}ar CACHE FILEPATH "")
set(CMAKE_RANLIB ${VORTEX_TOOL_PREFIX}ranlib CACHE FILEPATH "")
set(CMAKE_OBJCOPY ${VORTEX_TOOL_PREFIX}objcopy CACHE FILEPATH "")
set(CMAKE_OBJDUMP ${VORTEX_TOOL_PREFIX}objdump CACHE FILEPATH "")

# No start files or OS: compiler checks build a static library instead of linking.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(CMAKE_C_FLAGS_INIT "${arch} ${common} ${extra}")
set(CMAKE_CXX_FLAGS_INIT "${arch} ${common} ${extra} ${cxx}")
set(CMAKE_ASM_FLAGS_INIT "${arch} ${asm_extra} -g")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${link}")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
