#!/usr/bin/env bash
# Does a locked benchmark compile to the same program when the generator writes its text again?
# For every locked pair of a suite: the committed CUDA proxy and the one this build's generator
# writes for design.json, each compiled for sm_90(a) to PTX (nvcc -O3, the candidate build's
# flags; ptxas makes the same machine code of the same PTX), compared with the anonymous
# namespace's per-file name taken out; the committed Vortex kernel and the regenerated one, each
# through `vxsynth sim cc` to a .vxbin, compared byte for byte. Prints one line per pair (same /
# differs for each side) and exits 1 when one differs.
# Needs nvcc (skipped per pair without it) and the Vortex kernel toolchain.
# Usage: bench/relayout-same-binaries.sh [SUITE] [BUILD]
set -uo pipefail
cd "$(dirname "$0")/.."
SUITE=${1:-suite/vx-robotics/h200}
BUILD=${2:-build}
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
status=0
printf '%-28s %-8s %-8s %s\n' benchmark cuda vortex "generator (lock -> now)"
for bench in "$SUITE"/*/; do
  b=$(basename "$bench")
  [ -f "$bench/validation.json" ] || continue
  out="$WORK/$b"
  "$BUILD/vxsynth" gen --design "$bench/design.json" --out "$out" --no-data >/dev/null || { echo "$b: gen failed"; status=1; continue; }
  cuda=skipped
  if [ -x "$NVCC" ]; then
    arch="-arch=sm_90"
    grep -q '^// vxsynth-target: sm_90a' "$bench/cuda/candidate.cu" && arch="-gencode=arch=compute_90a,code=sm_90a"
    ptx() {  # SOURCE OUT: PTX with the file-derived names of internal symbols made one token
      "$NVCC" $arch -O3 -std=c++17 -ptx -Isrc/gpu/abi -o "$2.raw" "$1" 2>/dev/null &&
        sed -E 's/_(GLOBAL__N_|INTERNAL)_[0-9a-f]+_[0-9]+_[A-Za-z0-9_]+_cu_[0-9a-f]+/INTERNAL/g' "$2.raw" > "$2"
    }
    ptx "$bench/cuda/candidate.cu" "$out/locked.ptx" && ptx "$out/cuda/candidate.cu" "$out/now.ptx" &&
      { cmp -s "$out/locked.ptx" "$out/now.ptx" && cuda=same || cuda=differs; } || cuda=error
  fi
  "$BUILD/vxsynth" sim cc "$bench/vortex/kernel.cpp" -I "$bench/vortex" -o "$out/locked/kernel.vxbin" >/dev/null 2>&1 &&
    "$BUILD/vxsynth" sim cc "$out/vortex/kernel.cpp" -I "$out/vortex" -o "$out/now/kernel.vxbin" >/dev/null 2>&1 &&
    { cmp -s "$out/locked/kernel.vxbin" "$out/now/kernel.vxbin" && vortex=same || vortex=differs; } || vortex=error
  gen=$(/usr/bin/python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); g=v.get("cuda_generator") or {}; print(g.get("version", 0))' "$bench/validation.json")
  printf '%-28s %-8s %-8s %s\n' "$b" "$cuda" "$vortex" "$gen -> $("$BUILD/vxsynth" --version 2>/dev/null | sed -n 's/.*generator \([0-9]*\).*/\1/p')"
  [ "$cuda" = differs ] || [ "$cuda" = error ] || [ "$vortex" != same ] && status=1
done
exit $status
