# Tests of vortex-rt and the host runtime (owned by vortex-rt; included from CMakeLists.txt).
# Kernels come from the vortex-rt examples build (cross-compiled by the vortex_rt_device
# ExternalProject); host programs are the examples' own main.cpp builds.
if(TARGET vortex_rt_examples AND TARGET vxsynth_vxsim_host)
  vxsynth_add_gtest(vxsim_host_tests
    SOURCES test_host_api.cpp
    LIBS vxsynth_vxsim_host
    LABELS vxsim)
  target_compile_definitions(vxsim_host_tests PRIVATE VORTEX_RT_EXAMPLES_DIR="${VORTEX_RT_EXAMPLES_DIR}")
  add_dependencies(vxsim_host_tests vortex_rt_examples)

  vxsynth_add_gtest(vxsim_rt_program_tests
    SOURCES test_programs_examples.cpp test_programs_sim_cli.cpp
    LIBS vxsynth_vxsim_host
    LABELS vxsim)
  target_compile_definitions(vxsim_rt_program_tests PRIVATE
    VORTEX_RT_EXAMPLES_DIR="${VORTEX_RT_EXAMPLES_DIR}"
    VORTEX_RT_SOURCE_DIR="${VXSYNTH_SOURCE_DIR}/vortex-rt"
    VXSYNTH_CLI="$<TARGET_FILE:vxsynth>")
  add_dependencies(vxsim_rt_program_tests vortex_rt_examples vxsynth)
endif()

# GEMM through WMMA for every format and warp width (the tensor_gemm example; owned by tensor).
if(TARGET vortex_rt_examples AND TARGET vxsynth_vxsim_host)
  vxsynth_add_gtest(vxsim_wmma_gemm_tests
    SOURCES test_wmma_gemm.cpp
    LIBS vxsynth_vxsim_host
    LABELS vxsim)
  target_compile_definitions(vxsim_wmma_gemm_tests PRIVATE VORTEX_RT_EXAMPLES_DIR="${VORTEX_RT_EXAMPLES_DIR}"
                                                           VXSYNTH_CLI="$<TARGET_FILE:vxsynth>")
  add_dependencies(vxsim_wmma_gemm_tests vortex_rt_examples vxsynth)
endif()

# Divergent regions under GCC -O3: one join per split, and the reported tensor-core conv2d
# (owned by vortex-rt; runs only the CLI).
if(TARGET vxsynth_vxsim_host)
  vxsynth_add_gtest(vxsim_divergence_o3_tests
    SOURCES test_divergence_o3.cpp
    LIBS vxsynth_vxsim_host
    LABELS vxsim)
  target_compile_definitions(vxsim_divergence_o3_tests PRIVATE VXSYNTH_CLI="$<TARGET_FILE:vxsynth>"
                                                              VORTEX_RT_EXAMPLES_DIR="${VORTEX_RT_EXAMPLES_DIR}")
  add_dependencies(vxsim_divergence_o3_tests vxsynth)
endif()

# Divergence handling of the kernel toolchain and the split/join verifier (issue 22), and the
# differential campaign: random divergent kernels at -O0/-O3 on several shapes against the host.
if(TARGET vxsynth_vxsim_host)
  vxsynth_add_gtest(vxsim_divergence_toolchain_tests
    SOURCES test_divergence_toolchain.cpp
    LIBS vxsynth_vxsim_host
    LABELS vxsim)
  target_compile_definitions(vxsim_divergence_toolchain_tests PRIVATE VXSYNTH_CLI="$<TARGET_FILE:vxsynth>"
    VORTEX_RT_EXAMPLES_DIR="${VORTEX_RT_EXAMPLES_DIR}"
    VXSIM_DIVERGENCE_PROGRAMS="${CMAKE_CURRENT_SOURCE_DIR}/programs/divergence")
  add_dependencies(vxsim_divergence_toolchain_tests vxsynth)

  add_test(NAME vxsim_divergence_campaign
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/divergence_campaign.py --vxsynth $<TARGET_FILE:vxsynth>
                   --count 8 --seed 22 --work ${CMAKE_CURRENT_BINARY_DIR}/divergence-campaign)
  set_tests_properties(vxsim_divergence_campaign PROPERTIES LABELS "vxsim;divergence" TIMEOUT 900)
  # The negative control: GCC without divergence handling must fail the same campaign.
  add_test(NAME vxsim_divergence_campaign_gcc_fails
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/divergence_campaign.py --vxsynth $<TARGET_FILE:vxsynth>
                   --count 2 --seed 22 --opt 3 --compiler gcc --no-verify --expect-failure
                   --work ${CMAKE_CURRENT_BINARY_DIR}/divergence-campaign-gcc)
  set_tests_properties(vxsim_divergence_campaign_gcc_fails PROPERTIES LABELS "vxsim;divergence" TIMEOUT 300)
endif()
