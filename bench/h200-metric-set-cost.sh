#!/usr/bin/env bash
# What a smaller ncu metric set saves per profiled launch (run on the GPU machine from the repo
# root, with build/ built; docs/measurements/h200-suite.md, session 17): four locked proxies x 5
# launches profiled with the signature's full metric list (`vxsynth gpu profile`), then the same
# job under ncu twice more, with the full list and with only the counters the ten metrics need.
# Usage: OUT=DIR bench/h200-metric-set-cost.sh    (prints seconds of ncu + harness per list)
set -uo pipefail
: "${OUT:?set OUT to an output folder}"
P="$OUT/passes"; mkdir -p "$P"
ops=(); cands=()
for b in act-2-linear act-3-linear pi0-2-linear diffusion_policy-2-conv1d; do
  ops+=(suite/vx-robotics/h200/$b/design.json); cands+=(suite/vx-robotics/h200/$b/cuda/candidate.cu)
done
# the op specs: design.json carries the op; gpu profile wants vxsynth.op/1 files
for b in act-2-linear act-3-linear pi0-2-linear diffusion_policy-2-conv1d; do
  /usr/bin/python3 -c "import json,sys; json.dump(json.load(open('suite/vx-robotics/h200/$b/design.json'))['op'], open('$P/$b.op.json','w'))"
done
t0=$(date +%s.%N)
build/vxsynth gpu profile --op $P/act-2-linear.op.json $P/act-3-linear.op.json $P/pi0-2-linear.op.json $P/diffusion_policy-2-conv1d.op.json \
  --candidates "${cands[@]}" --pair --kernel gemm --repeat 5 --out "$P/full" > "$P/full.out" 2>&1
t1=$(date +%s.%N); echo "full profile: $(python3 -c "print(round($t1 - $t0, 2))") s"
grep -E "^time:" "$P/full.out"
cmd=$(grep -rhoE "/usr/local/cuda/bin/ncu .*" "$P/full"/result.json "$P/full"/*.txt 2>/dev/null | head -1)
job=$(ls "$P"/full/job.json 2>/dev/null)
full_metrics=$(echo "$cmd" | grep -oE -- "--metrics [^ ]+" | cut -d' ' -f2)
min_metrics="gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct,smsp__sass_inst_executed_op_global_ld.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_fp16.sum,sm__ops_path_tensor_src_tf32_dst_fp32.sum,sm__ops_path_tensor_src_fp8.sum,smsp__sass_inst_executed_op_global_atom.sum,smsp__sass_inst_executed_op_global_red.sum,smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,smsp__sass_thread_inst_executed_op_fmul_pred_on.sum,smsp__sass_thread_inst_executed_op_hfma_pred_on.sum,smsp__sass_thread_inst_executed_op_hadd_pred_on.sum,smsp__sass_thread_inst_executed_op_hmul_pred_on.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,smsp__sass_thread_inst_executed_op_dadd_pred_on.sum,smsp__sass_thread_inst_executed_op_dmul_pred_on.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__bytes.sum.per_second,smsp__average_thread_inst_executed_per_inst_executed.ratio,sm__warps_active.avg.pct_of_peak_sustained_active"
echo "cmd: ${cmd:0:200}"
echo "full list: $(echo "$full_metrics" | tr ',' '\n' | wc -l) metrics; minimal: $(echo "$min_metrics" | tr ',' '\n' | wc -l)"
harness_and_job=$(echo "$cmd" | grep -oE "[^ ]+vxsynth-gpu-harness [^ ]+")
common="--target-processes all --nvtx --nvtx-include vxsynth/ --csv --page raw --print-units base --clock-control none --cache-control all --kernel-name-base function --kernel-name regex:^(.*::)?(gemm|transform)$"
for set in full min; do
  m=$full_metrics; [ $set = min ] && m=$min_metrics
  t0=$(date +%s.%N)
  /usr/local/cuda/bin/ncu $common --metrics "$m" $harness_and_job > "$P/$set.csv" 2> "$P/$set.err"
  t1=$(date +%s.%N)
  echo "$set: ncu+harness $(python3 -c "print(round($t1 - $t0, 2))") s, $(grep -c '' "$P/$set.csv") csv lines"
done
