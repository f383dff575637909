/* A CPU stand-in for a CUDA candidate, for the swap tests: the candidate ABI's entry point
 * computing linear / matmul / conv1d / conv2d (channels first) in fp32 on host pointers, so a
 * test can tell whether vxsynth.swap marshalled shapes, strides and transposes correctly.
 * -DSTUB_DECLINE builds one that declines every problem. */
#include <stddef.h>
#include "vxsynth_candidate.h"

static long long calls;
static void* last_stream;

long long vxsynth_stub_calls(void) { return calls; }
void* vxsynth_stub_last_stream(void) { return last_stream; }
size_t vxsynth_stub_sizeof_problem(void) { return sizeof(vxsynth_problem); }
size_t vxsynth_stub_sizeof_buffers(void) { return sizeof(vxsynth_buffers); }
/* offsets of the fields the swap sets, in this order */
size_t vxsynth_stub_offset(int i) {
  static const size_t off[] = {
    offsetof(vxsynth_problem, op_kind), offsetof(vxsynth_problem, precision),
    offsetof(vxsynth_problem, m), offsetof(vxsynth_problem, transpose_b),
    offsetof(vxsynth_problem, batch), offsetof(vxsynth_problem, b_batch_stride),
    offsetof(vxsynth_problem, batch_count), offsetof(vxsynth_problem, n_img),
    offsetof(vxsynth_problem, groups), offsetof(vxsynth_buffers, workspace_bytes)};
  return off[i];
}

static float A(const vxsynth_problem* p, const float* a, long long z, long long m, long long k) {
  long long off = z * p->a_batch_stride[0];
  return p->transpose_a ? a[off + k * p->m + m] : a[off + m * p->k + k];
}
static float B(const vxsynth_problem* p, const float* b, long long z, long long k, long long n) {
  long long off = z * p->b_batch_stride[0];
  if (p->op_kind == VXSYNTH_OP_LINEAR) return b[n * p->k + k];
  return p->transpose_b ? b[off + n * p->k + k] : b[off + k * p->n + n];
}

int vxsynth_candidate_launch(const vxsynth_problem* p, const vxsynth_buffers* buf, vxsynth_stream stream) {
  ++calls;
  last_stream = (void*)stream;
#ifdef STUB_DECLINE
  (void)p; (void)buf;
  return VXSYNTH_LAUNCH_UNSUPPORTED;
#else
  if (p->abi_version != VXSYNTH_CANDIDATE_ABI_VERSION || p->dtype != VXSYNTH_DTYPE_FP32) return 7;
  const float *a = buf->a, *b = buf->b, *bias = buf->bias;
  float* out = buf->out;
  if (p->op_kind == VXSYNTH_OP_LINEAR || p->op_kind == VXSYNTH_OP_MATMUL) {
    for (long long z = 0; z < p->batch_count; ++z)
      for (long long m = 0; m < p->m; ++m)
        for (long long n = 0; n < p->n; ++n) {
          double s = 0;
          for (long long k = 0; k < p->k; ++k) s += (double)A(p, a, z, m, k) * B(p, b, z, k, n);
          if (p->has_bias) s += bias[n];
          out[(z * p->m + m) * p->n + n] = (float)s;
        }
    return VXSYNTH_LAUNCH_OK;
  }
  if (p->layout != VXSYNTH_LAYOUT_CHANNELS_FIRST) return VXSYNTH_LAUNCH_UNSUPPORTED;
  long long cg = p->c_in / p->groups, kg = p->k_out / p->groups;
  for (long long i = 0; i < p->n_img; ++i)
    for (long long ko = 0; ko < p->k_out; ++ko)
      for (long long y = 0; y < p->p; ++y)
        for (long long x = 0; x < p->q; ++x) {
          double s = p->has_bias ? bias[ko] : 0.0;
          long long g = ko / kg;
          for (long long c = 0; c < cg; ++c)
            for (long long r = 0; r < p->r; ++r)
              for (long long t = 0; t < p->s; ++t) {
                long long iy = y * p->stride_h - p->pad_h + r * p->dilation_h;
                long long ix = x * p->stride_w - p->pad_w + t * p->dilation_w;
                if (iy < 0 || iy >= p->h || ix < 0 || ix >= p->w) continue;
                s += (double)a[((i * p->c_in + g * cg + c) * p->h + iy) * p->w + ix] *
                     b[((ko * cg + c) * p->r + r) * p->s + t];
              }
          out[((i * p->k_out + ko) * p->p + y) * p->q + x] = (float)s;
        }
  return VXSYNTH_LAUNCH_OK;
#endif
}
