#!/bin/sh
# A scripted external generator for the refine tests, speaking the file protocol of
# docs/refine.md: it reads $VXSYNTH_BUNDLE/bundle.json and writes candidate.cu, kernel.cpp and
# note.json into $VXSYNTH_OUT (its working folder). Usage: scripted-generator.sh VXSYNTH AXIS=VALUE
#   revision 1: AXIS=VALUE on the current design with a wrong Vortex kernel (a subtraction where
#               the accumulation adds): the candidate check must reject it
#   revision 2: AXIS=VALUE with the generated kernel, declaring the design (so replay finds it)
#   revision 3: a candidate.cu that opens a file: the sandbox must reject it
#   revision 4: an extra output file: the sandbox must reject it
set -eu
VX=$1
SETTING=$2
bundle=$VXSYNTH_BUNDLE
rev=$(sed -n 's/^  "revision": \([0-9][0-9]*\),$/\1/p' "$bundle/bundle.json")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$VX" gen --design "$bundle/current/design.json" --set "$SETTING" --out "$tmp/gen" > "$tmp/gen.log"
cp "$tmp/gen/cuda/candidate.cu" candidate.cu
cp "$tmp/gen/vortex/kernel.cpp" kernel.cpp
case "$rev" in
  1) sed -i '0,/ += /s// -= /' kernel.cpp ;;
  3) printf '\nstatic void* peek() { return fopen("/tmp/y.bin", "rb"); }\n' >> candidate.cu ;;
  4) echo cached > cache.bin ;;
esac
{
  printf '{\n  "schema": "vxsynth.revision-note/1",\n'
  printf '  "moves": [{"axis": "%s", "value": "%s"}],\n' "${SETTING%%=*}" "${SETTING#*=}"
  printf '  "targets": ["dram_bandwidth", "compute_throughput"],\n'
  printf '  "why": "scripted revision %s: %s",\n' "$rev" "$SETTING"
  printf '  "same_operator": "one axis changed; the op and the fixed properties are kept",\n'
  printf '  "design": '
  cat "$tmp/gen/design.json"
  printf '}\n'
} > note.json
