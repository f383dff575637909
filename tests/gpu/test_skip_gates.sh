#!/usr/bin/env bash
# Checks the gates that keep a run from passing without testing what it claims:
#  - device_suite.sh reports Skipped (77) only when nothing failed (it once reported Skipped
#    whenever the output said "no CUDA device is present", even after a failure);
#  - scripts/gpu-ctest fails on a machine without a working CUDA device (it once ran every device
#    test as Skipped and exited 0);
#  - the candidate-build tests fail without nvcc unless VXSYNTH_ALLOW_MISSING_NVCC=1 (they were
#    skipped silently, so a clean CI image without CUDA passed them untested).
# Usage: test_skip_gates.sh BUILD_DIR GPU_HOST_TEST_BINARY
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: test_skip_gates.sh BUILD_DIR GPU_HOST_TEST_BINARY}
host_tests=${2:?usage: test_skip_gates.sh BUILD_DIR GPU_HOST_TEST_BINARY}
build=$(cd "$build" && pwd)
host_tests=$(cd "$(dirname "$host_tests")" && pwd)/$(basename "$host_tests")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/device-suite-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
expect() {  # expect RC DESCRIPTION -- command...
  local want=$1 what=$2; shift 3
  "$@" > "$tmp/out" 2>&1
  local got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: $what: exit $got, expected $want"; sed 's/^/    /' "$tmp/out"; fails=$((fails + 1))
  else
    echo "ok: $what (exit $got)"
  fi
}
fake() {  # fake NAME RC OUTPUT: a stand-in for the device test binary
  printf '#!/bin/sh\ncat <<"X"\n%s\nX\nexit %s\n' "$3" "$2" > "$tmp/$1"
  chmod +x "$tmp/$1"
}
fake all_skipped 0 "[ RUN      ] GpuDevice.A
no CUDA device is present (libcuda.so.1 missing)
[  SKIPPED ] GpuDevice.A
[  PASSED  ] 0 tests.
[  SKIPPED ] 7 tests, listed below:"
fake one_failed 1 "no CUDA device is present (probe)
[  FAILED  ] GpuDevice.B
[  PASSED  ] 0 tests.
[  SKIPPED ] 6 tests, listed below:
[  FAILED  ] 1 test, listed below:"
fake failed_rc0 0 "no CUDA device is present (probe)
[  PASSED  ] 3 tests.
[  SKIPPED ] 4 tests, listed below:"
fake all_passed 0 "[  PASSED  ] 7 tests."
expect 77 "all skipped for want of a device -> Skipped" -- "$here/device_suite.sh" "$tmp/all_skipped"
expect 1 "a failure next to the no-device message -> Failed" -- "$here/device_suite.sh" "$tmp/one_failed"
expect 0 "some tests ran and passed -> Passed, not Skipped" -- "$here/device_suite.sh" "$tmp/failed_rc0"
expect 0 "all passed -> Passed" -- "$here/device_suite.sh" "$tmp/all_passed"
if "$build/vxsynth" gpu status 2>/dev/null | grep -q '^CUDA device: present'; then
  echo "ok: a CUDA device is present here: the no-device gate of scripts/gpu-ctest is not exercised"
else
  expect 1 "scripts/gpu-ctest without a working device -> fails" -- "$here/../../scripts/gpu-ctest" "$build"
  grep -q "no working CUDA device" "$tmp/out" || { echo "FAIL: gpu-ctest did not say why"; fails=$((fails + 1)); }
fi
# make test leaves out the device tests by an anchored label regex: a future label that merely
# contains "gpu" (e.g. gpu-host) must stay in make test.
le=$(sed -n "s/.*-LE '\([^']*\)'.*/\1/p" "$here/../../scripts/run-tests" | head -1)
if [ -z "$le" ]; then
  echo "FAIL: scripts/run-tests has no quoted -LE regex"; fails=$((fails + 1))
else
  for label in gpu; do
    printf '%s\n' "$label" | grep -Eq -- "$le" || { echo "FAIL: -LE '$le' keeps label $label"; fails=$((fails + 1)); }
  done
  for label in gpu-host cuda-gpu gpu_device cuda-host; do
    printf '%s\n' "$label" | grep -Eq -- "$le" && { echo "FAIL: -LE '$le' also drops label $label"; fails=$((fails + 1)); }
  done
  echo "ok: make test's -LE '$le' drops exactly the label gpu"
fi

# The working directory of the host tests is tests/ (their data paths are relative to it).
cd "$here/.."
expect 1 "candidate-build tests without nvcc -> fail" -- \
  env VXSYNTH_NVCC=/nonexistent/nvcc PATH=/usr/bin:/bin "$host_tests" --gtest_filter='CliGpu.BuildAndInspectWithoutAGpu'
grep -q "nvcc not found" "$tmp/out" || { echo "FAIL: the failure does not say nvcc is missing"; fails=$((fails + 1)); }
expect 0 "... with VXSYNTH_ALLOW_MISSING_NVCC=1 -> skipped" -- \
  env VXSYNTH_NVCC=/nonexistent/nvcc VXSYNTH_ALLOW_MISSING_NVCC=1 "$host_tests" --gtest_filter='CliGpu.BuildAndInspectWithoutAGpu'
grep -q "\[  SKIPPED \] 1 test" "$tmp/out" || { echo "FAIL: not reported as skipped"; fails=$((fails + 1)); }
exit $((fails > 0))
