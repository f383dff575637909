// Kernel console output. Characters go to the IO console slot of the calling hardware
// thread (IO_COUT_ADDR + hartid % IO_COUT_SIZE, byte stores only); picolibc's stdout is
// bound to it so printf works on a single thread. vx_printf serialises the warp's lanes
// (vx_serial), because formatting branches on each lane's own arguments, and holds a
// device-wide lock while it prints: with more than 64 hardware threads several share a
// slot, and their lines would otherwise interleave character by character.
#include <stdint.h>
#include <stdio.h>
#include <vx_intrinsics.h>
#include <vx_print.h>
#include <vx_spawn.h>

static int console_put(char c, FILE* file) {
  (void)file;
  volatile uint8_t* slot = (volatile uint8_t*)(uintptr_t)(IO_COUT_ADDR + csr_read(VX_CSR_MHARTID) % IO_COUT_SIZE);
  *slot = (uint8_t)c;
  return (unsigned char)c;
}

static FILE vx_console = FDEV_SETUP_STREAM(console_put, NULL, NULL, _FDEV_SETUP_WRITE);
FILE* const stdout = &vx_console;
FILE* const stderr = &vx_console;

static volatile uint32_t console_lock;  // .bss: zero at start

// Only one lane runs these (inside vx_serial), so spinning is warp-uniform.
static void lock_console(void) {
  while (__atomic_exchange_n(&console_lock, 1u, __ATOMIC_ACQUIRE) != 0) {
  }
}

static void unlock_console(void) { __atomic_store_n(&console_lock, 0u, __ATOMIC_RELEASE); }

typedef struct {
  const char* format;
  va_list* args;
  int written;
} vprintf_job_t;

static void vprintf_on_lane(void* p) {
  vprintf_job_t* job = (vprintf_job_t*)p;
  lock_console();
  job->written = vfprintf(stdout, job->format, *job->args);
  unlock_console();
}

int vx_vprintf(const char* format, va_list va) {
  va_list args;
  va_copy(args, va);
  vprintf_job_t job = {format, &args, 0};
  vx_serial(vprintf_on_lane, &job);
  va_end(args);
  return job.written;
}

int vx_printf(const char* format, ...) {
  va_list va;
  va_start(va, format);
  int written = vx_vprintf(format, va);
  va_end(va);
  return written;
}

void vx_putchar(int c) { console_put((char)c, stdout); }

typedef struct {
  int value;
  int base;
} putint_job_t;

static void putint_on_lane(void* p) {
  const putint_job_t* job = (const putint_job_t*)p;
  char digits[34];
  unsigned magnitude = job->value < 0 && job->base == 10 ? 0u - (unsigned)job->value : (unsigned)job->value;
  int base = job->base >= 2 && job->base <= 16 ? job->base : 10;
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[magnitude % (unsigned)base];
    magnitude /= (unsigned)base;
  } while (magnitude != 0);
  lock_console();
  if (job->value < 0 && job->base == 10) console_put('-', stdout);
  while (n > 0) console_put(digits[--n], stdout);
  unlock_console();
}

void vx_putint(int value, int base) {
  putint_job_t job = {value, base};
  vx_serial(putint_on_lane, &job);
}

typedef struct {
  float value;
  int precision;
} putfloat_job_t;

static void putfloat_on_lane(void* p) {
  const putfloat_job_t* job = (const putfloat_job_t*)p;
  lock_console();
  fprintf(stdout, "%.*f", job->precision, (double)job->value);
  unlock_console();
}

void vx_putfloat(float value, int precision) {
  putfloat_job_t job = {value, precision};
  vx_serial(putfloat_on_lane, &job);
}
