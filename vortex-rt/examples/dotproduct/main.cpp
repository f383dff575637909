// Dot product host program (Vortex regression style): the kernel reduces per block, the host
// adds the block partials. ./dotproduct [-n points] [-b blocks] [-k kernel.vxbin]
#include <unistd.h>
#include <vortex.h>

#include <cmath>
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
static uint32_t count = 1000;
static uint32_t num_blocks = 0;  // 0 = two blocks per core slot

static vx_device_h device = nullptr;
static vx_buffer_h src0_buffer = nullptr;
static vx_buffer_h src1_buffer = nullptr;
static vx_buffer_h partial_buffer = nullptr;
static vx_buffer_h krnl_buffer = nullptr;
static vx_buffer_h args_buffer = nullptr;

static void show_usage() { printf("Usage: [-k: kernel] [-n points] [-b blocks] [-h: help]\n"); }

static void parse_args(int argc, char** argv) {
  int c;
  while ((c = getopt(argc, argv, "n:b:k:h")) != -1) {
    switch (c) {
      case 'n': count = (uint32_t)atoi(optarg); break;
      case 'b': num_blocks = (uint32_t)atoi(optarg); break;
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
    vx_mem_free(partial_buffer);
    vx_mem_free(krnl_buffer);
    vx_mem_free(args_buffer);
    vx_dev_close(device);
  }
}

int main(int argc, char* argv[]) {
  parse_args(argc, argv);
  if (count == 0) {
    printf("Error: -n must be > 0\n");
    return -1;
  }
  std::mt19937 rng(count * 13 + 5);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);

  RT_CHECK(vx_dev_open(&device));
  uint64_t num_cores = 0, num_warps = 0, num_threads = 0;
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_CORES, &num_cores));
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_WARPS, &num_warps));
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_THREADS, &num_threads));
  // Blocks of two warps (or the whole core if smaller): a real barrier between warps.
  uint32_t block_size = (uint32_t)(num_threads * (num_warps >= 2 ? 2 : 1));
  uint32_t max_localmem = 0;
  RT_CHECK(vx_check_occupancy(device, block_size, &max_localmem));
  if (block_size * sizeof(float) > max_localmem) {
    printf("Error: a block of %u floats does not fit %u bytes of local memory\n", block_size, max_localmem);
    cleanup();
    return -1;
  }
  if (num_blocks == 0) num_blocks = (uint32_t)(num_cores * (num_warps * num_threads / block_size) * 2);
  printf("points: %u, blocks: %u x %u threads\n", count, num_blocks, block_size);

  kernel_arg_t kernel_arg = {};
  kernel_arg.num_points = count;
  kernel_arg.num_blocks = num_blocks;
  kernel_arg.block_size = block_size;
  uint64_t buf_size = count * sizeof(float);
  uint64_t partial_size = num_blocks * sizeof(float);
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &src0_buffer));
  RT_CHECK(vx_mem_address(src0_buffer, &kernel_arg.src0_addr));
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &src1_buffer));
  RT_CHECK(vx_mem_address(src1_buffer, &kernel_arg.src1_addr));
  RT_CHECK(vx_mem_alloc(device, partial_size, VX_MEM_WRITE, &partial_buffer));
  RT_CHECK(vx_mem_address(partial_buffer, &kernel_arg.partial_addr));

  std::vector<float> h_src0(count), h_src1(count), h_partial(num_blocks);
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
  RT_CHECK(vx_copy_from_dev(h_partial.data(), partial_buffer, 0, partial_size));

  // Each block's partial against its own exact sum (a float sum of m terms is within
  // (m + log2(block) + 2) * 2^-24 * sum|terms|), then the total.
  int errors = 0;
  double total = 0, total_device = 0;
  uint32_t stride = num_blocks * block_size;
  for (uint32_t b = 0; b < num_blocks; ++b) {
    double exact = 0, abs_sum = 0;
    uint32_t terms = 0;
    for (uint32_t t = 0; t < block_size; ++t) {
      for (uint32_t i = b * block_size + t; i < count; i += stride) {
        double term = (double)h_src0[i] * h_src1[i];
        exact += term;
        abs_sum += std::fabs(term);
        ++terms;
      }
    }
    double tolerance = (terms + 2 + 32) * std::ldexp(1.0, -24) * abs_sum;
    if (!(std::fabs((double)h_partial[b] - exact) <= tolerance)) {
      if (errors < 20) printf("*** error: block %u expected=%f, actual=%f\n", b, exact, (double)h_partial[b]);
      ++errors;
    }
    total += exact;
    total_device += h_partial[b];
  }
  printf("dot product: %f (reference %f)\n", total_device, total);
  cleanup();
  if (errors != 0) {
    printf("Found %d errors!\nFAILED!\n", errors);
    return errors;
  }
  printf("PASSED!\n");
  return 0;
}
