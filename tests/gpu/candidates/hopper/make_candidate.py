# Makes one instance of the Hopper (TMA + wgmma) candidate family: a prelude of constants and the
# wgmma wrapper for the tile width, then the fixed body (body.cuh). Until the family is a codegen
# component (issue 13), this is how its instances are made:
#   python3 make_candidate.py PREC OP BN STAGES CONSUMERS BIAS OUT.cu [FLAGS: r = M-tile raster, s = TMA-store epilogue]
import os
import sys
TYPES = {"bf16": ("__nv_bfloat16", "cuda_bf16.h", "__bfloat162float(v)", "__float2bfloat16(v)", "BFLOAT16", "BF16", "BF16", 64, 16, "bf16"),
         "fp16": ("__half", "cuda_fp16.h", "__half2float(v)", "__float2half(v)", "FLOAT16", "FP16", "FP16", 64, 16, "f16"),
         "tf32": ("float", None, "v", "v", "FLOAT32", "FP32", "TF32", 32, 8, "tf32")}
def wgmma(n, ab, k):
    r = n // 2
    regs = ",".join(f"%{i}" for i in range(r))
    outs = ", ".join(f'"+f"(d[{i}])' for i in range(r))
    imm = "1, 1, 1, 0, 0" if ab != "tf32" else "1, 1, 1"
    return (f'__device__ __forceinline__ void wgmma_tile(float* d, unsigned long long da, unsigned long long db) {{\n'
            f'  asm volatile("wgmma.mma_async.sync.aligned.m64n{n}k{k}.f32.{ab}.{ab} {{{regs}}}, %{r}, %{r+1}, {imm};\\n"\n'
            f'               : {outs}\n               : "l"(da), "l"(db));\n}}\n')
def prelude(prec, op, bn, stages, consumers, bias, raster_m=False, store_tma=False):
    et, hdr, tof, fromf, maptype, dt, pp, bk, kstep, ab = TYPES[prec]
    s = "// vxsynth-target: sm_90a\n#include <cuda.h>\n#include <cudaTypedefs.h>\n#include <cuda_runtime.h>\n"
    if hdr: s += f"#include <{hdr}>\n"
    s += '\n#include "vxsynth_candidate.h"\n\nnamespace {\n\n'
    s += f"using elem_t = {et};\n"
    s += f"constexpr int kConsumers = {consumers}, kBM = {64*consumers}, kBN = {bn}, kBK = {bk}, kKStep = {kstep}, kStages = {stages}, kThreads = {128*(consumers+1)};\n"
    s += f"constexpr bool kIsConv = {'true' if op.startswith('conv') else 'false'}, kHasBias = {'true' if bias else 'false'};\n"
    s += f"constexpr bool kRasterM = {'true' if raster_m else 'false'}, kStoreTma = {'true' if store_tma else 'false'};\n"
    s += f"constexpr int kOpKind = VXSYNTH_OP_{op.upper()}, kDType = VXSYNTH_DTYPE_{dt}, kPrecision = VXSYNTH_PRECISION_{pp};\n"
    s += f"constexpr CUtensorMapDataType kMapType = CU_TENSOR_MAP_DATA_TYPE_{maptype};\n"
    s += f"__device__ __forceinline__ float to_float(elem_t v) {{ return {tof}; }}\n"
    s += f"__device__ __forceinline__ elem_t from_float(float v) {{ return {fromf}; }}\n"
    s += wgmma(bn, ab, kstep) + "\n"
    return s
prec, op, bn, stages, consumers, bias, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6] == "1", sys.argv[7]
flags = sys.argv[8] if len(sys.argv) > 8 else ""
open(out, "w").write(prelude(prec, op, bn, stages, consumers, bias, "r" in flags, "s" in flags) + open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "body.cuh")).read())
