// vecadd host program (Vortex regression style): ./vecadd [-n points] [-k kernel.vxbin]
#include <unistd.h>
#include <vortex.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "common.h"

#define RT_CHECK(_expr)                                            \
  do {                                                             \
    int _ret = _expr;                                              \
    if (0 == _ret) break;                                          \
    printf("Error: '%s' returned %d!\n", #_expr, (int)_ret);       \
    cleanup();                                                     \
    exit(-1);                                                      \
  } while (false)

static const char* kernel_file = "kernel.vxbin";
static uint32_t count = 16;

static vx_device_h device = nullptr;
static vx_buffer_h src0_buffer = nullptr;
static vx_buffer_h src1_buffer = nullptr;
static vx_buffer_h dst_buffer = nullptr;
static vx_buffer_h krnl_buffer = nullptr;
static vx_buffer_h args_buffer = nullptr;

static void show_usage() { printf("Usage: [-k: kernel] [-n points] [-h: help]\n"); }

static void parse_args(int argc, char** argv) {
  int c;
  while ((c = getopt(argc, argv, "n:k:h")) != -1) {
    switch (c) {
      case 'n': count = (uint32_t)atoi(optarg); break;
      case 'k': kernel_file = optarg; break;
      case 'h': show_usage(); exit(0);
      default: show_usage(); exit(-1);
    }
  }
}

static void cleanup() {
  if (device) {
    vx_mem_free(src0_buffer);
    vx_mem_free(src1_buffer);
    vx_mem_free(dst_buffer);
    vx_mem_free(krnl_buffer);
    vx_mem_free(args_buffer);
    vx_dev_close(device);
  }
}

int main(int argc, char* argv[]) {
  parse_args(argc, argv);
  std::mt19937 rng(count);
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);

  RT_CHECK(vx_dev_open(&device));
  uint64_t buf_size = count * sizeof(TYPE);
  printf("number of points: %u\n", count);

  kernel_arg_t kernel_arg = {};
  kernel_arg.num_points = count;
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &src0_buffer));
  RT_CHECK(vx_mem_address(src0_buffer, &kernel_arg.src0_addr));
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &src1_buffer));
  RT_CHECK(vx_mem_address(src1_buffer, &kernel_arg.src1_addr));
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_WRITE, &dst_buffer));
  RT_CHECK(vx_mem_address(dst_buffer, &kernel_arg.dst_addr));

  std::vector<TYPE> h_src0(count), h_src1(count), h_dst(count);
  for (uint32_t i = 0; i < count; ++i) {
    h_src0[i] = dist(rng);
    h_src1[i] = dist(rng);
  }
  RT_CHECK(vx_copy_to_dev(src0_buffer, h_src0.data(), 0, buf_size));
  RT_CHECK(vx_copy_to_dev(src1_buffer, h_src1.data(), 0, buf_size));

  RT_CHECK(vx_upload_kernel_file(device, kernel_file, &krnl_buffer));
  RT_CHECK(vx_upload_bytes(device, &kernel_arg, sizeof(kernel_arg_t), &args_buffer));
  RT_CHECK(vx_start(device, krnl_buffer, args_buffer));
  RT_CHECK(vx_ready_wait(device, VX_MAX_TIMEOUT));
  RT_CHECK(vx_copy_from_dev(h_dst.data(), dst_buffer, 0, buf_size));

  int errors = 0;
  for (uint32_t i = 0; i < count; ++i) {
    TYPE ref = h_src0[i] + h_src1[i];
    if (h_dst[i] != ref) {
      if (errors < 20) printf("*** error: [%u] expected=%f, actual=%f\n", i, (double)ref, (double)h_dst[i]);
      ++errors;
    }
  }
  cleanup();
  if (errors != 0) {
    printf("Found %d errors!\nFAILED!\n", errors);
    return errors;
  }
  printf("PASSED!\n");
  return 0;
}
