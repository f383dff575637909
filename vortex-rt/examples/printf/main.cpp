// printf host program (Vortex regression style): ./printf [-n tasks] [-k kernel.vxbin]
// The kernel's lines appear as "#slot: text" while it runs.
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
static vx_buffer_h src_buffer = nullptr;
static vx_buffer_h dst_buffer = nullptr;
static vx_buffer_h krnl_buffer = nullptr;
static vx_buffer_h args_buffer = nullptr;

static void show_usage() { printf("Usage: [-k: kernel] [-n tasks] [-h: help]\n"); }

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
    vx_mem_free(src_buffer);
    vx_mem_free(dst_buffer);
    vx_mem_free(krnl_buffer);
    vx_mem_free(args_buffer);
    vx_dev_close(device);
  }
}

int main(int argc, char* argv[]) {
  parse_args(argc, argv);
  std::mt19937 rng(count + 99);
  std::uniform_int_distribution<int32_t> dist(-1000, 1000);

  RT_CHECK(vx_dev_open(&device));
  uint64_t buf_size = count * sizeof(int32_t);
  printf("tasks: %u\n", count);
  fflush(stdout);

  kernel_arg_t kernel_arg = {};
  kernel_arg.num_points = count;
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &src_buffer));
  RT_CHECK(vx_mem_address(src_buffer, &kernel_arg.src_addr));
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_WRITE, &dst_buffer));
  RT_CHECK(vx_mem_address(dst_buffer, &kernel_arg.dst_addr));

  std::vector<int32_t> h_src(count), h_dst(count);
  for (auto& v : h_src) v = dist(rng);
  RT_CHECK(vx_copy_to_dev(src_buffer, h_src.data(), 0, buf_size));

  RT_CHECK(vx_upload_kernel_file(device, kernel_file, &krnl_buffer));
  RT_CHECK(vx_upload_bytes(device, &kernel_arg, sizeof(kernel_arg_t), &args_buffer));
  RT_CHECK(vx_start(device, krnl_buffer, args_buffer));
  RT_CHECK(vx_ready_wait(device, VX_MAX_TIMEOUT));
  RT_CHECK(vx_copy_from_dev(h_dst.data(), dst_buffer, 0, buf_size));

  int errors = 0;
  for (uint32_t i = 0; i < count; ++i) {
    if (h_dst[i] != h_src[i] * 3) {
      if (errors < 20) printf("*** error: [%u] expected=%d, actual=%d\n", i, h_src[i] * 3, h_dst[i]);
      ++errors;
    }
  }
  // The task lines: print the inputs too, so a test can check every line's value.
  for (uint32_t i = 0; i < count; ++i) printf("input %u: %d\n", i, h_src[i]);
  cleanup();
  if (errors != 0) {
    printf("Found %d errors!\nFAILED!\n", errors);
    return errors;
  }
  printf("PASSED!\n");
  return 0;
}
