#!/usr/bin/env bash
# Runs the whole device test binary as one CTest test (gpu_device_suite, in `make test`). Exit 77
# (CTest: Skipped) only when it succeeded and every test was skipped for want of a CUDA device;
# a failure stays a failure even when the output also says that no device is present.
# Usage: device_suite.sh DEVICE_TEST_BINARY [gtest args...]
set -uo pipefail
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne 0 ]; then exit "$rc"; fi
ran=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\?\..*/\1/p' | tail -1)
if printf '%s\n' "$out" | grep -q 'no CUDA device is present' && [ "${ran:-0}" -eq 0 ]; then
  echo "gpu_device_suite: skipped: no CUDA device is present (every device test skipped, none failed)"
  exit 77
fi
exit 0
