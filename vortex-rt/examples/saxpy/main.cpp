// saxpy host program (Vortex regression style): ./saxpy [-n points] [-a alpha] [-k kernel.vxbin]
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
static uint32_t count = 100;
static float alpha = 1.75f;

static vx_device_h device = nullptr;
static vx_buffer_h x_buffer = nullptr;
static vx_buffer_h y_buffer = nullptr;
static vx_buffer_h krnl_buffer = nullptr;
static vx_buffer_h args_buffer = nullptr;

static void show_usage() { printf("Usage: [-k: kernel] [-n points] [-a alpha] [-h: help]\n"); }

static void parse_args(int argc, char** argv) {
  int c;
  while ((c = getopt(argc, argv, "n:a:k:h")) != -1) {
    switch (c) {
      case 'n': count = (uint32_t)atoi(optarg); break;
      case 'a': alpha = (float)atof(optarg); break;
      case 'k': kernel_file = optarg; break;
      case 'h': show_usage(); exit(0);
      default: show_usage(); exit(-1);
    }
  }
}

static void cleanup() {
  if (device) {
    vx_mem_free(x_buffer);
    vx_mem_free(y_buffer);
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
  std::mt19937 rng(count * 7 + 1);
  std::uniform_real_distribution<float> dist(-10.0f, 10.0f);

  RT_CHECK(vx_dev_open(&device));
  uint64_t buf_size = count * sizeof(float);
  printf("number of points: %u, alpha: %f\n", count, (double)alpha);

  kernel_arg_t kernel_arg = {};
  kernel_arg.num_points = count;
  kernel_arg.alpha = alpha;
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &x_buffer));
  RT_CHECK(vx_mem_address(x_buffer, &kernel_arg.x_addr));
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ_WRITE, &y_buffer));
  RT_CHECK(vx_mem_address(y_buffer, &kernel_arg.y_addr));

  std::vector<float> h_x(count), h_y(count), h_out(count);
  for (uint32_t i = 0; i < count; ++i) {
    h_x[i] = dist(rng);
    h_y[i] = dist(rng);
  }
  RT_CHECK(vx_copy_to_dev(x_buffer, h_x.data(), 0, buf_size));
  RT_CHECK(vx_copy_to_dev(y_buffer, h_y.data(), 0, buf_size));

  RT_CHECK(vx_upload_kernel_file(device, kernel_file, &krnl_buffer));
  RT_CHECK(vx_upload_bytes(device, &kernel_arg, sizeof(kernel_arg_t), &args_buffer));
  RT_CHECK(vx_start(device, krnl_buffer, args_buffer));
  RT_CHECK(vx_ready_wait(device, VX_MAX_TIMEOUT));
  RT_CHECK(vx_copy_from_dev(h_out.data(), y_buffer, 0, buf_size));

  int errors = 0;
  for (uint32_t i = 0; i < count; ++i) {
    // GCC may fuse the kernel's multiply-add (fmadd.s): allow a few ulps of the terms.
    float ref = alpha * h_x[i] + h_y[i];
    float tolerance = 1e-6f * (std::fabs(alpha * h_x[i]) + std::fabs(h_y[i]));
    if (!(std::fabs(h_out[i] - ref) <= tolerance)) {
      if (errors < 20) printf("*** error: [%u] expected=%f, actual=%f\n", i, (double)ref, (double)h_out[i]);
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
