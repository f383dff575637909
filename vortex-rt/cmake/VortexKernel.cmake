# Functions for cross projects configured with vortex-rt/toolchain.cmake.
#
#   vortex_rt_library()               the runtime as static library target `vortexrt`
#   vortex_add_kernel(NAME SOURCES src... [INCLUDE_DIRS dir...] [DEFINES d...] [OUTPUT_DIR dir])
#       -> <OUTPUT_DIR>/kernel.elf and, when VORTEX_VXBIN_TOOL names the host's vxsim-elf2vxbin,
#          kernel.vxbin and kernel.dump (OUTPUT_DIR defaults to <binary dir>/<NAME>).
set(VORTEX_RT_DIR ${CMAKE_CURRENT_LIST_DIR}/.. CACHE PATH "vortex-rt folder")
get_filename_component(VORTEX_RT_DIR ${VORTEX_RT_DIR} ABSOLUTE)

# Objects compiled through the divergence plugin are rebuilt when the plugin changes.
function(vortex_depend_on_plugin)
  if(VORTEX_DIVERGENCE_PLUGIN AND VORTEX_KERNEL_COMPILER STREQUAL "clang")
    set_source_files_properties(${ARGN} PROPERTIES OBJECT_DEPENDS ${VORTEX_DIVERGENCE_PLUGIN})
  endif()
endfunction()

function(vortex_rt_library)
  if(TARGET vortexrt)
    return()
  endif()
  enable_language(ASM)
  file(GLOB sources CONFIGURE_DEPENDS ${VORTEX_RT_DIR}/src/*.c ${VORTEX_RT_DIR}/src/*.S)
  add_library(vortexrt STATIC ${sources})
  vortex_depend_on_plugin(${sources})
  target_include_directories(vortexrt PUBLIC ${VORTEX_RT_DIR}/include ${VORTEX_RT_DIR}/extra PRIVATE ${VORTEX_RT_DIR}/src)
  # The small C++ device library (<algorithm>, <cmath>, <cstdlib>, ...) for C++ kernels.
  target_include_directories(vortexrt SYSTEM INTERFACE $<$<COMPILE_LANGUAGE:CXX>:${VORTEX_RT_DIR}/cxx>)
  set_target_properties(vortexrt PROPERTIES ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
endfunction()

function(vortex_add_kernel name)
  cmake_parse_arguments(K "" "OUTPUT_DIR" "SOURCES;INCLUDE_DIRS;DEFINES" ${ARGN})
  vortex_rt_library()
  if(NOT K_OUTPUT_DIR)
    set(K_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR}/${name})
  endif()
  set(target ${name}_kernel)
  add_executable(${target} ${K_SOURCES})
  vortex_depend_on_plugin(${K_SOURCES})
  target_include_directories(${target} PRIVATE ${K_INCLUDE_DIRS})
  target_compile_definitions(${target} PRIVATE ${K_DEFINES})
  # The runtime is linked as whole objects: _start must come first and nothing references it.
  target_link_libraries(${target} PRIVATE -Wl,--whole-archive vortexrt -Wl,--no-whole-archive m)
  target_link_options(${target} PRIVATE -T ${VORTEX_RT_DIR}/link32.ld)
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME kernel SUFFIX ".elf"
    LINKER_LANGUAGE C  # the gcc driver: no libstdc++ exists for this target
    RUNTIME_OUTPUT_DIRECTORY ${K_OUTPUT_DIR}
    LINK_DEPENDS ${VORTEX_RT_DIR}/link32.ld)
  if(VORTEX_VXBIN_TOOL)
    # kernel.vxbin and an objdump listing with the Vortex instructions named.
    add_custom_command(TARGET ${target} POST_BUILD
      COMMAND ${VORTEX_VXBIN_TOOL} $<TARGET_FILE:${target}> ${K_OUTPUT_DIR}/kernel.vxbin
              --dump ${K_OUTPUT_DIR}/kernel.dump --tool-prefix ${VORTEX_TOOL_PREFIX}
      VERBATIM)
  endif()
endfunction()
