// Console output from kernels (Vortex 2.x names). Each hardware thread writes to its own
// console slot; the simulator prints a slot's text when the line ends. vx_printf is safe to
// call from every thread of a warp at once: it serialises the warp's active lanes.
#ifndef VX_PRINT_H
#define VX_PRINT_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

int vx_vprintf(const char* format, va_list va);
int vx_printf(const char* format, ...) __attribute__((format(printf, 1, 2)));
void vx_putchar(int c);
void vx_putint(int value, int base);
void vx_putfloat(float value, int precision);

#ifdef __cplusplus
}
#endif

#endif  // VX_PRINT_H
