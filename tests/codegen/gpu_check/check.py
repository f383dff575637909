# GPU check of generated CUDA candidates (README.md): builds each designs/<i>/candidate.cu with
# nvcc, calls it through the candidate ABI (ctypes) on seeded torch tensors and compares the
# output with torch in float64: max |y - ref| <= bound(precision) * max |ref|, no NaN left.
# A design whose folder names a twin (designs/<i>/twin, codegen_gpu_sample's split_reduce mode)
# draws the same inputs as its twin, is launched three times (the output refilled with NaN
# before each), and each output must equal the twin's bit for bit.
#   python3 check.py ABI_DIR OUT_DIR      (next to the designs/ folder)
import ctypes, json, math, os, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor
import torch
import torch.nn.functional as F

root = os.path.dirname(os.path.abspath(__file__))
abi = sys.argv[1]
out_dir = sys.argv[2]
os.makedirs(out_dir, exist_ok=True)  # the results file goes there; a fresh machine has no such folder
designs = sorted(os.listdir(os.path.join(root, "designs")), key=int)

def build(i):
    d = os.path.join(root, "designs", i)
    so = os.path.join(d, "candidate.so")
    src = os.path.join(d, "candidate.cu")
    # the Hopper family's candidates say `// vxsynth-target: sm_90a` (wgmma, setmaxnreg need the a-target)
    with open(src) as f:
        arch = ["-gencode=arch=compute_90a,code=sm_90a"] if f.readline().strip() == "// vxsynth-target: sm_90a" else ["-arch=sm_90"]
    r = subprocess.run(["nvcc", *arch, "-O3", "-shared", "-Xcompiler", "-fPIC", "-I", abi, "-o", so, src],
                       capture_output=True, text=True)
    return i, r.returncode, r.stderr[-2000:]

t0 = time.time()
with ThreadPoolExecutor(16) as ex:
    builds = list(ex.map(build, designs))
print(f"built {len(builds)} in {time.time()-t0:.0f}s; failures: {[b[0] for b in builds if b[1]]}", flush=True)
for b in builds:
    if b[1]: print(b[0], b[2])

I64x4 = ctypes.c_int64 * 4
class Problem(ctypes.Structure):
    _fields_ = [(n, ctypes.c_int32) for n in ["abi_version", "op_kind", "dtype", "precision", "has_bias", "activation", "layout", "reserved0"]] + \
        [(n, ctypes.c_int64) for n in ["m", "n", "k"]] + [(n, ctypes.c_int32) for n in ["transpose_a", "transpose_b", "batch_rank", "reserved1"]] + \
        [("batch", I64x4), ("a_batch_stride", I64x4), ("b_batch_stride", I64x4), ("batch_count", ctypes.c_int64)] + \
        [(n, ctypes.c_int64) for n in ["n_img", "c_in", "h", "w", "k_out", "r", "s", "p", "q", "stride_h", "stride_w", "pad_h", "pad_w", "dilation_h", "dilation_w", "groups"]]
class Buffers(ctypes.Structure):
    _fields_ = [("a", ctypes.c_void_p), ("b", ctypes.c_void_p), ("bias", ctypes.c_void_p), ("out", ctypes.c_void_p),
                ("workspace", ctypes.c_void_p), ("workspace_bytes", ctypes.c_size_t)]

DT = {"fp32": torch.float32, "tf32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
DTID = {"fp32": 1, "tf32": 1, "bf16": 2, "fp16": 3}
PID = {"fp32": 1, "tf32": 2, "bf16": 3, "fp16": 4}
ACT = {"none": 0, "relu": 1, "gelu": 2, "gelu_tanh": 3, "silu": 4}
THRESH = {"fp32": 2e-5, "tf32": 6e-3, "bf16": 2e-2, "fp16": 4e-3}

def act(x, a):
    if a == "relu": return torch.relu(x)
    if a == "gelu": return F.gelu(x)
    if a == "gelu_tanh": return F.gelu(x, approximate="tanh")
    if a == "silu": return F.silu(x)
    return x

def strides(out, dims, matrix):
    s = [0] * 4
    r, ra = len(out), len(dims)
    for i in range(r):
        if i + ra < r: continue
        ia = i + ra - r
        if dims[ia] == 1: continue
        st = matrix
        for j in range(ia + 1, ra): st *= dims[j]
        s[i] = st
    return s

twin = {i: open(os.path.join(root, "designs", i, "twin")).read().strip() for i in designs
        if os.path.exists(os.path.join(root, "designs", i, "twin"))}
draw_seed = {i: int(i) for i in designs}
for i, t in twin.items(): draw_seed[t] = int(i)  # the twin draws the same inputs
outputs = {}
g = torch.Generator(device="cuda")
def uni(shape, bound, dt):
    return ((torch.rand(shape, generator=g, device="cuda", dtype=torch.float64) * 2 - 1) * bound).to(dt)

results = []
for i in designs:
    d = json.load(open(os.path.join(root, "designs", i, "design.json")))
    g.manual_seed(1000003 * draw_seed[i] + 1)
    op = d["op"]; prec = op["precision"]; dt = DT[prec]; kind = op["kind"]
    pr = Problem(); pr.abi_version = 1; pr.dtype = DTID[prec]; pr.precision = PID[prec]
    if kind == "linear":
        L = op["linear"]; M, N, K = L["m"], L["n"], L["k"]
        x = uni((M, K), 1, dt); w = uni((N, K), 3 / math.sqrt(K), dt)
        bias = uni((N,), 0.5, dt) if L["bias"] else None
        ref = x.double() @ w.double().T + (bias.double() if bias is not None else 0)
        ref = act(ref, L["activation"]); a_t, b_t = x, w
        pr.op_kind = 1; pr.m, pr.n, pr.k = M, N, K; pr.has_bias = int(L["bias"]); pr.activation = ACT[L["activation"]]; pr.batch_count = 1
        out = torch.full((M, N), float("nan"), device="cuda", dtype=dt); ref_stored = ref
    elif kind == "matmul":
        Mm = op["matmul"]; M, N, K = Mm["m"], Mm["n"], Mm["k"]; ba, bb = Mm["batch_a"], Mm["batch_b"]
        ta, tb = Mm["transpose_a"], Mm["transpose_b"]
        a_t = uni(tuple(ba) + ((K, M) if ta else (M, K)), 1, dt); b_t = uni(tuple(bb) + ((N, K) if tb else (K, N)), 3 / math.sqrt(K), dt)
        A = a_t.double().transpose(-1, -2) if ta else a_t.double(); B = b_t.double().transpose(-1, -2) if tb else b_t.double()
        ref = torch.matmul(A, B); bo = list(ref.shape[:-2]); bias = None
        pr.op_kind = 2; pr.m, pr.n, pr.k = M, N, K; pr.transpose_a, pr.transpose_b = int(ta), int(tb); pr.batch_rank = len(bo)
        for j, v in enumerate(bo): pr.batch[j] = v
        for j, v in enumerate(strides(bo, ba, M * K)): pr.a_batch_stride[j] = v
        for j, v in enumerate(strides(bo, bb, K * N)): pr.b_batch_stride[j] = v
        pr.batch_count = math.prod(bo) if bo else 1
        out = torch.full(tuple(bo) + (M, N), float("nan"), device="cuda", dtype=dt); ref_stored = ref
    elif kind == "layout_transform":
        # permute().contiguous() of a logical [n, c, spatial...] tensor; compared bit for bit.
        T = op["transform"]; nd = len(T["spatial"]); last = (0, *range(2, 2 + nd), 1)
        logical = uni((T["batch"], T["channels"], *T["spatial"]), 1, dt)
        from_last, to_last = T["from"] in ("NLC", "NHWC"), T["to"] in ("NLC", "NHWC")
        a_t = logical.permute(*last).contiguous() if from_last else logical.contiguous()
        ref_stored = logical.permute(*last).contiguous() if to_last else logical.contiguous()
        b_t = a_t; bias = None
        pr.op_kind = 5; pr.layout = int(from_last); pr.n_img, pr.c_in = T["batch"], T["channels"]
        pr.h, pr.w = (T["spatial"][0], T["spatial"][1]) if nd == 2 else (1, T["spatial"][0])
        pr.batch_count = 1
        out = torch.full(tuple(ref_stored.shape), float("nan"), device="cuda", dtype=dt)
    else:
        C = op["conv"]; two = kind == "conv2d"; nhwc = C["layout"] in ("NHWC", "NLC")
        n, cin, kout, gr = C["batch"], C["in_channels"], C["out_channels"], C["groups"]
        ins, ker = C["input_size"], C["kernel"]; cg = cin // gr; K = cg * math.prod(ker)
        x_l = uni((n, cin, *ins), 1, dt); w_l = uni((kout, cg, *ker), 3 / math.sqrt(K), dt)
        bias = uni((kout,), 0.5, dt) if C["bias"] else None
        fn = F.conv2d if two else F.conv1d
        ref = fn(x_l.double(), w_l.double(), bias.double() if bias is not None else None, stride=C["stride"], padding=C["padding"], dilation=C["dilation"], groups=gr)
        ref = act(ref, C["activation"])
        perm_x = (0, 2, 3, 1) if two else (0, 2, 1)
        a_t = x_l.permute(*perm_x).contiguous() if nhwc else x_l
        b_t = w_l.permute(*((0, 2, 3, 1) if two else (0, 2, 1))).contiguous() if nhwc else w_l
        ref_stored = ref.permute(*perm_x).contiguous() if nhwc else ref
        pr.op_kind = 4 if two else 3; pr.has_bias = int(C["bias"]); pr.activation = ACT[C["activation"]]; pr.layout = int(nhwc)
        pr.n_img, pr.c_in, pr.k_out, pr.groups = n, cin, kout, gr
        osz = list(ref.shape[2:])
        if two:
            pr.h, pr.w = ins; pr.r, pr.s = ker; pr.p, pr.q = osz
            pr.stride_h, pr.stride_w = C["stride"]; pr.pad_h, pr.pad_w = C["padding"]; pr.dilation_h, pr.dilation_w = C["dilation"]
        else:
            pr.h, pr.w = 1, ins[0]; pr.r, pr.s = 1, ker[0]; pr.p, pr.q = 1, osz[0]
            pr.stride_h, pr.stride_w = 1, C["stride"][0]; pr.pad_h, pr.pad_w = 0, C["padding"][0]; pr.dilation_h, pr.dilation_w = 1, C["dilation"][0]
        pr.batch_count = 1
        out = torch.full(tuple(ref_stored.shape), float("nan"), device="cuda", dtype=dt)
    lib = ctypes.CDLL(os.path.join(root, "designs", i, "candidate.so"))
    lib.vxsynth_candidate_workspace_bytes.restype = ctypes.c_size_t
    ws_bytes = lib.vxsynth_candidate_workspace_bytes(ctypes.byref(pr))
    ws = torch.full((max(1, ws_bytes // 4 + 1),), float("nan"), device="cuda", dtype=torch.float32)
    buf = Buffers(a_t.data_ptr(), b_t.data_ptr(), bias.data_ptr() if bias is not None else None, out.data_ptr(),
                  ws.data_ptr() if ws_bytes else None, ws_bytes)
    launch = lambda: lib.vxsynth_candidate_launch(ctypes.byref(pr), ctypes.byref(buf), ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
    rc = launch()
    torch.cuda.synchronize()
    same = True
    if i in twin:
        first = out.clone()
        for _ in range(2):
            out.fill_(float("nan"))
            rc = rc or launch()
            torch.cuda.synchronize()
            same = same and torch.equal(out.view(torch.int16 if out.element_size() == 2 else torch.int32),
                                        first.view(torch.int16 if first.element_size() == 2 else torch.int32))
    if i in twin or i in twin.values(): outputs[i] = out.clone()
    y = out.double()
    err = (y - ref_stored).abs().max().item() if rc == 0 else float("inf")
    scale = ref_stored.abs().max().item()
    ok = rc == 0 and not torch.isnan(y).any().item() and err <= THRESH[prec] * scale
    if kind == "layout_transform":
        bits = torch.int32 if dt == torch.float32 else torch.int16
        ok = rc == 0 and torch.equal(out.view(bits), ref_stored.view(bits))
    ok = ok and same
    results.append({"i": int(i), "name": d["name"], "rc": rc, "rel_err": err / scale if scale else err, "ok": bool(ok),
                    **({"repeats_equal": bool(same)} if i in twin else {})})
    if not ok: print("FAIL", i, d["name"], rc, err / scale if scale else err, "repeats equal" if same else "repeats DIFFER", flush=True)
# Twins: the same sums in the same order, so the same bits.
for i, t in twin.items():
    a, b = outputs.get(i), outputs.get(t)
    bits = torch.int16 if a is not None and a.element_size() == 2 else torch.int32
    equal = a is not None and b is not None and torch.equal(a.view(bits), b.view(bits))
    r = next(r for r in results if r["i"] == int(i))
    r["equals_twin"] = bool(equal)
    r["ok"] = r["ok"] and equal
    if not equal:
        diff = (a.double() - b.double()).abs().max().item() if a is not None and b is not None else float("nan")
        print("FAIL", i, "differs from its twin", t, "by", diff, flush=True)
if twin: print(f"{sum(1 for i in twin if next(r for r in results if r['i'] == int(i))['equals_twin'])}/{len(twin)} equal their twin bit for bit")
bad = [r for r in results if not r["ok"]]
print(f"{len(results) - len(bad)}/{len(results)} candidates match torch (float64) within the precision's bound")
json.dump(results, open(os.path.join(out_dir, "gpucheck.json"), "w"), indent=1)
