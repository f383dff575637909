// Device float math for kernels: picolibc's versions are built by GCC, whose branches on the
// argument diverge between lanes with no SPLIT/JOIN around them; these are compiled with the
// kernel toolchain (clang + the vortex-divergence plugin by default), so any branch here is
// handled like one in the kernel. Linked before picolibc, they replace its definitions.
// Accuracy: within 2 ulp of the correctly rounded result for sinf/cosf with |x| < 1e4 (a
// three-part pi/2 reduction; |x| >= 1e9 gives NaN), and for expf, logf, tanhf over their whole range (the
// polynomials are the classic Cephes single-precision ones).
#include <math.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t bits_of(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  return u;
}
static inline float float_of(uint32_t u) {
  float x;
  memcpy(&x, &u, 4);
  return x;
}

float fabsf(float x) { return __builtin_fabsf(x); }
// fmin.s/fmax.s implement C's fminf/fmaxf (a quiet NaN operand yields the other one). By asm:
// GCC 12 expands the builtins to a call, here a call to the function itself.
float fminf(float x, float y) {
  float r;
  __asm__("fmin.s %0, %1, %2" : "=f"(r) : "f"(x), "f"(y));
  return r;
}
float fmaxf(float x, float y) {
  float r;
  __asm__("fmax.s %0, %1, %2" : "=f"(r) : "f"(x), "f"(y));
  return r;
}
float sqrtf(float x) { return __builtin_sqrtf(x); }
float copysignf(float x, float y) { return __builtin_copysignf(x, y); }
float fmaf(float x, float y, float z) { return __builtin_fmaf(x, y, z); }

// Round to nearest even through fcvt.w.s (rintf would be a call into picolibc); |v| < 2^31.
static inline float nearest(float v) { return (float)__builtin_lrintf(v); }

// |x| >= 2^23 (or NaN/inf) is already integral.
static inline int is_integral_range(float x) { return !(__builtin_fabsf(x) < 8388608.0f); }

float truncf(float x) {
  if (is_integral_range(x)) return x;
  return __builtin_copysignf((float)(int32_t)x, x);
}
float floorf(float x) {
  if (is_integral_range(x)) return x;
  float t = (float)(int32_t)x;
  if (t > x) t -= 1.0f;
  return __builtin_copysignf(t, x);
}
float ceilf(float x) {
  if (is_integral_range(x)) return x;
  float t = (float)(int32_t)x;
  if (t < x) t += 1.0f;
  return __builtin_copysignf(t, x);
}
float roundf(float x) {
  if (is_integral_range(x)) return x;
  float t = (float)(int32_t)x;
  if (__builtin_fabsf(x - t) >= 0.5f) t += __builtin_copysignf(1.0f, x);
  return __builtin_copysignf(t, x);
}

// x = k * pi/2 + r, |r| <= pi/4; returns k.
static inline int32_t reduce_pio2(float x, float* r) {
  const float k = nearest(x * 0.636619772367581343f);
  float y = __builtin_fmaf(-k, 1.5703125f, x);
  y = __builtin_fmaf(-k, 4.837512969970703125e-4f, y);
  y = __builtin_fmaf(-k, 7.54978995489188216e-8f, y);
  *r = y;
  return (int32_t)k;
}
static inline float sin_poly(float r) {
  const float z = r * r;
  return __builtin_fmaf(((-1.9515295891e-4f * z + 8.3321608736e-3f) * z - 1.6666654611e-1f) * z, r, r);
}
static inline float cos_poly(float r) {
  const float z = r * r;
  return ((2.443315711809948e-5f * z - 1.388731625493765e-3f) * z + 4.166664568298827e-2f) * z * z - 0.5f * z + 1.0f;
}

float sinf(float x) {
  if (!(__builtin_fabsf(x) < 1e9f)) return __builtin_isinf(x) ? __builtin_nanf("") : x;
  float r;
  const int32_t q = reduce_pio2(x, &r) & 3;
  const float v = (q & 1) ? cos_poly(r) : sin_poly(r);
  return (q & 2) ? -v : v;
}

float cosf(float x) {
  if (!(__builtin_fabsf(x) < 1e9f)) return __builtin_nanf("");
  float r;
  const int32_t q = reduce_pio2(x, &r) & 3;
  const float v = (q & 1) ? sin_poly(r) : cos_poly(r);
  return (q == 1 || q == 2) ? -v : v;
}

float tanf(float x) { return sinf(x) / cosf(x); }

float expf(float x) {
  if (__builtin_isnan(x)) return x;
  if (x > 88.72283935546875f) return __builtin_inff();
  if (x < -103.97208404541015625f) return 0.0f;
  const float n = nearest(x * 1.44269504088896341f);
  float r = __builtin_fmaf(-n, 0.693359375f, x);
  r = __builtin_fmaf(n, 2.12194440e-4f, r);
  const float z = r * r;
  float p = ((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r + 4.1665795894e-2f) * r +
             1.6666665459e-1f) * r + 5.0000001201e-1f;
  p = __builtin_fmaf(p, z, r) + 1.0f;
  // p * 2^n in two steps, so that results near the subnormal range stay exact.
  int32_t e = (int32_t)n;
  const int32_t half = e / 2;
  p *= float_of((uint32_t)(half + 127) << 23);
  return p * float_of((uint32_t)(e - half + 127) << 23);
}

float exp2f(float x) { return expf(x * 0.693147180559945309f); }

float logf(float x) {
  if (__builtin_isnan(x) || x == __builtin_inff()) return x;
  if (x < 0.0f) return __builtin_nanf("");
  if (x == 0.0f) return -__builtin_inff();
  int32_t e = 0;
  if (x < 1.17549435e-38f) {  // subnormal: scale into the normal range
    x *= 16777216.0f;
    e = -24;
  }
  uint32_t u = bits_of(x);
  e += (int32_t)(u >> 23) - 126;
  float m = float_of((u & 0x007fffffu) | 0x3f000000u);  // [0.5, 1)
  if (m < 0.70710678118654752f) {
    m = m + m - 1.0f;
    e -= 1;
  } else {
    m = m - 1.0f;
  }
  const float fe = (float)e;
  const float z = m * m;
  float y = (((((((7.0376836292e-2f * m - 1.1514610310e-1f) * m + 1.1676998740e-1f) * m - 1.2420140846e-1f) * m +
                1.4249322787e-1f) * m - 1.6668057665e-1f) * m + 2.0000714765e-1f) * m - 2.4999993993e-1f) * m +
            3.3333331174e-1f;
  y = y * m * z;
  y = __builtin_fmaf(fe, -2.12194440e-4f, y);
  y = __builtin_fmaf(-0.5f, z, y);
  return __builtin_fmaf(fe, 0.693359375f, m + y);
}

float log2f(float x) { return logf(x) * 1.44269504088896341f; }
float log10f(float x) { return logf(x) * 0.434294481903251828f; }

float tanhf(float x) {
  const float a = __builtin_fabsf(x);
  if (a < 0.625f) {
    const float z = x * x;
    return __builtin_fmaf(
        ((((-5.70498872745e-3f * z + 2.06390887954e-2f) * z - 5.37397155531e-2f) * z + 1.33314422036e-1f) * z -
         3.33332819422e-1f) * z, x, x);
  }
  if (a > 9.0f) return __builtin_copysignf(1.0f, x);
  const float t = 1.0f - 2.0f / (expf(a + a) + 1.0f);
  return __builtin_copysignf(t, x);
}

float powf(float x, float y) {
  if (y == 0.0f) return 1.0f;
  if (x == 1.0f) return 1.0f;
  const int integral = __builtin_fabsf(y) >= 8388608.0f || nearest(y) == y;
  const float yi = __builtin_fabsf(y) >= 8388608.0f ? y : nearest(y);
  if (x < 0.0f) {
    if (!integral) return __builtin_nanf("");
    const float v = expf(y * logf(-x));
    const int odd = __builtin_fabsf(yi) < 16777216.0f && ((int32_t)yi & 1);
    return odd ? -v : v;
  }
  return expf(y * logf(x));
}
