#!/usr/bin/env bash
# Where a profiled launch's time goes (run on the GPU machine from the repo root, with build/
# built; docs/measurements/h200-suite.md, session 18): every locked proxy x 3 repeats in one
# `vxsynth gpu profile` job, then the same job under ncu with one metric (one replay pass), with
# `--cache-control none`, and the harness alone without ncu. Prints each job's wall seconds and
# the harness's phase seconds (result.json phase_seconds: inputs, vendor, warm_up, runner_launch
# with ncu's replay passes, compare).
# Usage: OUT=DIR bench/h200-harness-phases.sh
set -uo pipefail
: "${OUT:?set OUT to an output folder}"
VX=$PWD/build/vxsynth
export VXSYNTH_CACHE_DIR=${VXSYNTH_CACHE_DIR:-/tmp/vxsynth-nvcc-cache}
P="$OUT/phases"; rm -rf "$P"; mkdir -p "$P"
ops=(); cands=()
for b in suite/vx-robotics/h200/*/; do
  b=${b%/}; name=$(basename "$b"); [ -f "$b/design.json" ] || continue  # merged references have no pair
  /usr/bin/python3 -c "import json,sys; json.dump(json.load(open(sys.argv[1]))['op'], open(sys.argv[2],'w'))" "$b/design.json" "$P/$name.json"
  cp "$b/cuda/candidate.cu" "$P/${name//-/_}.cu"
  ops+=("$P/$name.json"); cands+=("$P/${name//-/_}.cu")
done
secs() { /usr/bin/python3 -c "print(round($2 - $1, 2))"; }
phases() { /usr/bin/python3 -c "import json,sys; p=json.load(open(sys.argv[1])).get('phase_seconds',{}); print(' '.join(f'{k} {v:.2f}' for k,v in sorted(p.items())))" "$1"; }
# builds out of the timing
"$VX" gpu profile --pair --kernel gemm --kernel transform --op "${ops[@]}" --candidates "${cands[@]}" --repeat 1 --seed 5 --out "$P/warm" > "$P/warm.log" 2>&1
s=$(date +%s.%N)
"$VX" gpu profile --pair --kernel gemm --kernel transform --op "${ops[@]}" --candidates "${cands[@]}" --repeat 3 --seed 11 --out "$P/job" > "$P/job.log" 2>&1
e=$(date +%s.%N); echo "ncu, the signature's metrics: $(secs "$s" "$e") s | $(phases "$P/job/result.json")"
run_variant() {  # $1: label, $2: sed expression on the job's ncu command
  local cmd; cmd=$(sed -E "$2" "$P/job/ncu-command.txt")
  s=$(date +%s.%N); eval "$cmd" > "$P/variant.csv" 2> "$P/variant.log"; e=$(date +%s.%N)
  echo "$1: $(secs "$s" "$e") s | $(phases "$P/job/result.json")"
}
run_variant "ncu, one metric (one pass)" 's/--metrics [^ ]+/--metrics gpu__time_duration.sum/'
run_variant "ncu, the signature's metrics, --cache-control none" 's/--cache-control all/--cache-control none/'
s=$(date +%s.%N); build/vxsynth-gpu-harness "$P/job/job.json" > "$P/noncu.log" 2>&1; e=$(date +%s.%N)
echo "the harness alone, no ncu: $(secs "$s" "$e") s | $(phases "$P/job/result.json")"
