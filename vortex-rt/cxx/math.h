// vortex-rt C++ device library: C++'s <math.h> (see README.md): picolibc's functions plus the
// float overloads, so that fmin(float, float) calls fminf as it does with a hosted C++ library.
#pragma once
#ifndef __cplusplus
#include_next <math.h>  // C code sees picolibc's header unchanged
#else
#include <cmath>

using std::sin; using std::cos; using std::tan; using std::asin; using std::acos; using std::atan; using std::sinh;
using std::cosh; using std::tanh; using std::exp; using std::exp2; using std::expm1; using std::log; using std::log2;
using std::log10; using std::log1p; using std::sqrt; using std::cbrt; using std::fabs; using std::floor;
using std::ceil; using std::trunc; using std::round; using std::rint; using std::atan2; using std::pow;
using std::hypot; using std::fmod; using std::fmin; using std::fmax; using std::copysign; using std::fma;
using std::ldexp; using std::lround;
using std::isnan; using std::isinf; using std::isfinite; using std::signbit;
#endif
