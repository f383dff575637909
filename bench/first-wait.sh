#!/usr/bin/env bash
# What a new user waits for: a fresh clone of this repository, then `make run` (the build of
# what the main job needs, then the main job) and `make test` (the rest of the build, every
# test), each timed. Prints the times the README quotes.
# Usage: [CI=true] bench/first-wait.sh [DIR]   (DIR: where to clone, default a fresh temporary
# folder; CI=true builds with -Werror, so `make test` is then exactly what CI runs)
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$(mktemp -d /tmp/vxsynth-first-wait.XXXXXX)}
git clone -q "$src" "$dir/clone" || exit 1
cd "$dir/clone"
jobs=${JOBS:-$(nproc)}
# t LOG COMMAND...: seconds and exit code of COMMAND, its output in $dir/LOG.log.
t() { local log=$1 s rc; shift; s=$(date +%s); "$@" > "$dir/$log.log" 2>&1; rc=$?; echo "$(( $(date +%s) - s )) $rc"; }
read -r build_run rc1 < <(t make-build-run make build-run JOBS="$jobs")
read -r main rc2 < <(t main-job scripts/main-job build/vxsynth)
read -r rest rc3 < <(t make-test make test JOBS="$jobs")
printf 'cores %s, commit %s\n' "$jobs" "$(git log -1 --format=%h)"
printf 'make run : build %d s (%s targets) + main job %d s = %d s (exit %s/%s)\n' "$build_run" \
  "$(grep -o '\[[0-9]*/[0-9]*\]' "$dir/make-build-run.log" | tail -1 | tr -d '[]' | cut -d/ -f2)" "$main" \
  "$(( build_run + main ))" "$rc1" "$rc2"
printf 'make test: %d s after make run (the rest of the build, every test; exit %s): %d s from a fresh clone\n' \
  "$rest" "$rc3" "$(( build_run + rest ))"
echo "logs: $dir"
