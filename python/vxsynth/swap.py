"""Swapped execution: run reconstructed CUDA candidates inside the real PyTorch workloads.

`Swap` is a TorchDispatchMode, like the capture's OpTracker, so it sees the same ATen calls the
reference capture saw (aten.addmm / mm / bmm / convolution below F.linear, torch.matmul, the @
operator, nn.Linear, nn.Conv1d/2d, F.multi_head_attention_forward alike). A call whose dispatch
op, shapes, strides, dtypes and math mode equal a pair's reference op goes to that pair's CUDA
candidate, loaded from its shared object through the candidate ABI (src/gpu/abi/
vxsynth_candidate.h) and launched on PyTorch's current stream with the model's own tensors;
every other call runs the original operator. Every decision lands in the dispatch log.

    with Swap(pairs) as swap:
        model(**inputs)
    swap.log  # one DispatchRecord per intercepted GEMM/conv call

docs/swap.md describes the matching rules, the in-workload checks and the profile.
"""
from __future__ import annotations

import ctypes
import json
import shutil
import struct
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch.utils._python_dispatch import TorchDispatchMode

# ---------------------------------------------------------------------------------------------
# The candidate ABI, version 1 (mirrors src/gpu/abi/vxsynth_candidate.h field by field; a test
# compares ctypes.sizeof with the C compiler's sizeof through a stub shared object).

ABI_VERSION = 1
LAUNCH_OK, LAUNCH_UNSUPPORTED = 0, 1
OP_KIND = {"linear": 1, "matmul": 2, "conv1d": 3, "conv2d": 4}
DTYPE = {torch.float32: 1, torch.bfloat16: 2, torch.float16: 3}
PRECISION = {"fp32": 1, "tf32": 2, "bf16": 3, "fp16": 4}
MAX_BATCH_RANK = 4

_I32, _I64 = ctypes.c_int32, ctypes.c_int64


class Problem(ctypes.Structure):
    _fields_ = [(name, _I32) for name in
                ("abi_version", "op_kind", "dtype", "precision", "has_bias", "activation", "layout", "reserved0")] + [
        ("m", _I64), ("n", _I64), ("k", _I64),
        ("transpose_a", _I32), ("transpose_b", _I32), ("batch_rank", _I32), ("reserved1", _I32),
        ("batch", _I64 * MAX_BATCH_RANK), ("a_batch_stride", _I64 * MAX_BATCH_RANK),
        ("b_batch_stride", _I64 * MAX_BATCH_RANK), ("batch_count", _I64)] + [
        (name, _I64) for name in ("n_img", "c_in", "h", "w", "k_out", "r", "s", "p", "q", "stride_h", "stride_w",
                                  "pad_h", "pad_w", "dilation_h", "dilation_w", "groups")]


class Buffers(ctypes.Structure):
    _fields_ = [("a", ctypes.c_void_p), ("b", ctypes.c_void_p), ("bias", ctypes.c_void_p), ("out", ctypes.c_void_p),
                ("workspace", ctypes.c_void_p), ("workspace_bytes", ctypes.c_size_t)]


class SwapError(RuntimeError):
    """A swap that cannot go on: missing or foreign shared object, a failed launch."""


# ---------------------------------------------------------------------------------------------
# Which GPU a shared object was built for: the SM numbers of the cubins in its .nv_fatbin.

_FATBIN_MAGIC = 0xBA55ED50


def _elf_section(data: bytes, wanted: str) -> bytes | None:
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None  # only 64-bit little-endian objects carry CUDA fat binaries on x86-64
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    def header(i):
        return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
    names_off = header(shstrndx)[4]
    for i in range(shnum):
        name_off, _type, _flags, _addr, off, size = header(i)[:6]
        end = data.index(b"\0", names_off + name_off)
        if data[names_off + name_off:end].decode() == wanted:
            return data[off:off + size]
    return None


def cubin_archs(so_path: Path) -> set[int]:
    """SM versions (e.g. {90}) of the machine code in a shared object's fat binary; empty when it
    holds only PTX or no fat binary at all."""
    fatbin = _elf_section(Path(so_path).read_bytes(), ".nv_fatbin")
    archs: set[int] = set()
    pos = 0
    while fatbin and pos + 16 <= len(fatbin):
        magic, _version, header_size, size = struct.unpack_from("<IHHQ", fatbin, pos)
        if magic != _FATBIN_MAGIC:
            break
        entry, end = pos + header_size, pos + header_size + size
        while entry + 32 <= end:
            kind, _v, eh_size, payload = struct.unpack_from("<HHIQ", fatbin, entry)
            arch, = struct.unpack_from("<I", fatbin, entry + 28)
            if kind == 2:  # ELF (cubin); kind 1 is PTX
                archs.add(arch)
            if eh_size == 0:
                break
            entry += eh_size + payload
        pos = end
        pos = (pos + 7) & ~7
    return archs


# ---------------------------------------------------------------------------------------------
# Calls and the references they are matched against.

def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


def _math_mode(op: str, dtype: torch.dtype) -> str:
    if dtype == torch.bfloat16:
        return "bfloat16"
    if dtype == torch.float16:
        return "float16"
    if op.startswith("aten.convolution"):
        return "tf32" if torch.backends.cudnn.allow_tf32 else "fp32"
    return "tf32" if torch.backends.cuda.matmul.allow_tf32 else "fp32"


_PRECISION_OF_MATH = {"fp32": "fp32", "tf32": "tf32", "bfloat16": "bf16", "float16": "fp16", "bf16": "bf16", "fp16": "fp16"}


@dataclass(frozen=True)
class CallKey:
    """What must agree between a call and a reference: the dispatch op, every tensor argument's
    shape, stride and dtype (in order), the math mode and the convolution parameters."""
    op: str
    shapes: tuple
    strides: tuple
    dtypes: tuple
    math: str
    conv: tuple = ()

    @staticmethod
    def of_call(func, args) -> "CallKey":
        op = str(func.overloadpacket.__name__) if hasattr(func, "overloadpacket") else str(func)
        name = f"aten.{op}.{func._overloadname}" if hasattr(func, "_overloadname") else str(func)
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        conv = ()
        if op == "convolution":
            conv = (tuple(args[3]), tuple(args[4]), tuple(args[5]), bool(args[6]), tuple(args[7]), int(args[8]))
        return CallKey(name, tuple(tuple(t.shape) for t in tensors), tuple(tuple(t.stride()) for t in tensors),
                       tuple(_dtype_name(t.dtype) for t in tensors), _math_mode(name, tensors[0].dtype), conv)

    @staticmethod
    def of_reference(op: dict) -> "CallKey":
        conv = ()
        if op.get("dispatch_op", "").startswith("aten.convolution"):
            conv = (tuple(op["stride"]), tuple(op["padding"]), tuple(op["dilation"]), bool(op["transposed"]),
                    tuple(op["output_padding"]), int(op["groups"]))
        return CallKey(op["dispatch_op"], tuple(tuple(s) for s in op["input_shapes"]),
                       tuple(tuple(s) for s in op["strides"]), tuple(op["dtypes"]), op["math"], conv)

    def describe(self, with_op: bool = True) -> str:
        shapes = " ".join("x".join(map(str, s)) or "scalar" for s in self.shapes)
        text = f"{shapes} {'/'.join(self.dtypes)} {self.math}"
        return f"{self.op} {text}" if with_op else text


@dataclass
class Pair:
    """One locked (or seed) pair: its name, the reference op it reproduces and its candidate."""
    name: str
    keys: list[CallKey]
    so_path: Path | None
    reference: dict = field(repr=False, default_factory=dict)

    @staticmethod
    def from_folder(folder: Path, so_path: Path | None = None) -> "Pair":
        ref_path = folder / "reference.json"
        try:
            ref = json.loads(ref_path.read_text())
        except FileNotFoundError:
            raise SwapError(f"{ref_path}: no reference.json in the benchmark folder") from None
        except json.JSONDecodeError as e:
            raise SwapError(f"{ref_path}: not valid JSON ({e})") from None
        for key in ("dispatch_op", "input_shapes", "strides", "dtypes", "math"):
            if key not in ref.get("op", {}):
                raise SwapError(f"{ref_path}: field op.{key} is missing (a reference.json of vxsynth.reference/1 has it)")
        ops = [ref["op"]] + list(ref["op"].get("serves", []))  # merged benchmarks list every op they serve
        if so_path is None:
            found = sorted((folder / "cuda").glob("*.so")) if (folder / "cuda").is_dir() else []
            so_path = found[0] if found else None
        return Pair(folder.name, [CallKey.of_reference(o) for o in ops], so_path, ref)


def load_suite(suite: Path, shared_objects: dict[str, Path] | None = None, only: str | None = None,
               skipped: list[str] | None = None) -> list[Pair]:
    """Every benchmark folder of a suite (a folder holding reference.json), optionally only the
    ones whose name starts with `only` (a workload name). Benchmarks of a kernel that is part of
    an op rather than an op of the model (kernel_role layout_transform: cuDNN's weight re-layout
    inside a convolution) cannot stand in for a model call: they are left out and named in
    `skipped`."""
    suite = Path(suite)
    if not suite.is_dir():
        raise SwapError(f"{suite}: no such suite folder")
    pairs = []
    for folder in sorted(p for p in suite.iterdir() if (p / "reference.json").is_file()):
        if only and not folder.name.startswith(only + "-"):
            continue
        pair = Pair.from_folder(folder, (shared_objects or {}).get(folder.name))
        if pair.reference.get("op", {}).get("kernel_role", "compute") != "compute":
            if skipped is not None:
                skipped.append(f"{pair.name} ({pair.reference['op']['kernel_role']}: a kernel inside the op, "
                               f"not an op the model calls)")
            continue
        pairs.append(pair)
    return pairs


# ---------------------------------------------------------------------------------------------
# Turning a matched call into the ABI's problem and buffers.

def _ptr(t: torch.Tensor | None) -> int | None:
    return None if t is None else t.data_ptr()


class Launch:
    """The problem, the buffers and the tensors that must stay alive until the launch returns."""

    def __init__(self, problem: Problem, a, b, bias, out, copied: list[str]):
        self.problem, self.a, self.b, self.bias, self.out, self.copied = problem, a, b, bias, out, copied


def _new_problem(kind: str, dtype: torch.dtype, math: str) -> Problem:
    p = Problem()
    p.abi_version, p.op_kind, p.dtype = ABI_VERSION, OP_KIND[kind], DTYPE[dtype]
    p.precision = PRECISION[_PRECISION_OF_MATH[math]]
    p.batch_count = 1
    return p


def _dense(t: torch.Tensor, name: str, copied: list[str]) -> torch.Tensor:
    if t.is_contiguous():
        return t
    copied.append(name)
    return t.contiguous()


def _is_transposed(t: torch.Tensor) -> bool:
    """A 2-D (or batched) operand stored column-major: its last two dims swapped are dense."""
    return t.dim() >= 2 and t.stride(-2) == 1 and t.stride(-1) == t.shape[-2] and t.shape[-1] > 1


def build_launch(func, args, math: str) -> Launch:
    """The ABI view of an aten.addmm / mm / bmm / convolution call (model tensors, no copies
    where the layout already matches the ABI; each copy is named in the log)."""
    op = func.overloadpacket.__name__
    copied: list[str] = []
    if op in ("addmm", "mm"):
        bias, a, b = (args[0], args[1], args[2]) if op == "addmm" else (None, args[0], args[1])
        if op == "addmm" and (len(args) > 3):
            raise SwapError("addmm with beta/alpha other than 1 is not an ABI op")
        m, k = a.shape
        n = b.shape[1]
        a = _dense(a, "a", copied)
        if _is_transposed(b):  # x @ W^T: the weight itself is dense [n][k], the ABI's linear
            p = _new_problem("linear", a.dtype, math)
            weight = b.t()
        elif bias is None:
            p = _new_problem("matmul", a.dtype, math)
            weight = _dense(b, "b", copied)
        else:
            p = _new_problem("linear", a.dtype, math)
            weight = b.t().contiguous()
            copied.append("b (transposed to [n][k])")
        p.m, p.n, p.k = m, n, k
        if bias is not None:
            if bias.dim() != 1 or bias.shape[0] != n:
                raise SwapError(f"addmm bias of shape {tuple(bias.shape)} is not the ABI's per-column bias [{n}]")
            bias = _dense(bias, "bias", copied)
            p.has_bias = 1
        out = torch.empty((m, n), dtype=a.dtype, device=a.device)
        return Launch(p, a, weight, bias, out, copied)
    if op == "bmm":
        a, b = args[0], args[1]
        batch, m, k = a.shape
        n = b.shape[2]
        p = _new_problem("matmul", a.dtype, math)
        p.m, p.n, p.k, p.batch_rank, p.batch_count = m, n, k, 1, batch
        p.batch[0] = batch
        for name, t, flag in (("a", a, "transpose_a"), ("b", b, "transpose_b")):
            rows, cols = t.shape[1], t.shape[2]
            if t.stride(2) == 1 and t.stride(1) == cols:
                pass
            elif t.stride(1) == 1 and t.stride(2) == rows:
                setattr(p, flag, 1)
            else:
                t = t.contiguous()
                copied.append(name)
            if name == "a":
                a = t
                p.a_batch_stride[0] = t.stride(0) if batch > 1 else 0
            else:
                b = t
                p.b_batch_stride[0] = t.stride(0) if batch > 1 else 0
        out = torch.empty((batch, m, n), dtype=a.dtype, device=a.device)
        return Launch(p, a, b, None, out, copied)
    if op == "convolution":
        x, w, bias = args[0], args[1], args[2]
        stride, padding, dilation, transposed, _out_pad, groups = args[3:9]
        if transposed:
            raise SwapError("transposed convolutions are not an ABI op")
        dims = w.dim() - 2
        p = _new_problem("conv1d" if dims == 1 else "conv2d", x.dtype, math)
        channels_last = dims == 2 and not x.is_contiguous() and x.is_contiguous(memory_format=torch.channels_last)
        if channels_last:
            p.layout = 1
            if not w.is_contiguous(memory_format=torch.channels_last):
                w = w.contiguous(memory_format=torch.channels_last)
                copied.append("weight")
        else:
            x, w = _dense(x, "input", copied), _dense(w, "weight", copied)
        p.n_img, p.c_in, p.k_out, p.groups = x.shape[0], x.shape[1], w.shape[0], groups
        if dims == 1:
            p.h, p.w, p.r, p.s = 1, x.shape[2], 1, w.shape[2]
            p.stride_h, p.stride_w, p.pad_h, p.pad_w, p.dilation_h, p.dilation_w = 1, stride[0], 0, padding[0], 1, dilation[0]
        else:
            p.h, p.w, p.r, p.s = x.shape[2], x.shape[3], w.shape[2], w.shape[3]
            p.stride_h, p.stride_w = stride
            p.pad_h, p.pad_w = padding
            p.dilation_h, p.dilation_w = dilation
        p.p = (p.h + 2 * p.pad_h - p.dilation_h * (p.r - 1) - 1) // p.stride_h + 1
        p.q = (p.w + 2 * p.pad_w - p.dilation_w * (p.s - 1) - 1) // p.stride_w + 1
        if bias is not None:
            bias = _dense(bias, "bias", copied)
            p.has_bias = 1
        shape = (p.n_img, p.k_out, p.q) if dims == 1 else (p.n_img, p.k_out, p.p, p.q)
        if channels_last:
            out = torch.empty(shape, dtype=x.dtype, device=x.device, memory_format=torch.channels_last)
        else:
            out = torch.empty(shape, dtype=x.dtype, device=x.device)
        return Launch(p, x, w, bias, out, copied)
    raise SwapError(f"aten.{op} is not an ABI op")


# ---------------------------------------------------------------------------------------------
# Loading and launching a candidate.

class Candidate:
    def __init__(self, so_path: Path, *, check_arch: bool = True):
        self.so_path = Path(so_path)
        if not self.so_path.is_file():
            raise SwapError(f"{self.so_path}: candidate shared object not found "
                            f"(build it with `vxsynth gpu build <bench>/cuda/*.cu` or pass --so NAME=PATH)")
        if check_arch and torch.cuda.is_available():
            major, minor = torch.cuda.get_device_capability()
            archs = cubin_archs(self.so_path)
            if archs and major * 10 + minor not in archs:
                raise SwapError(f"{self.so_path}: built for {', '.join(f'sm_{a}' for a in sorted(archs))}, but this GPU "
                                f"({torch.cuda.get_device_name()}) is sm_{major}{minor}: rebuild it for this GPU")
        try:
            self.lib = ctypes.CDLL(str(self.so_path.resolve()))
        except OSError as e:
            raise SwapError(f"{self.so_path}: cannot be loaded ({e})") from None
        try:
            self._launch = self.lib.vxsynth_candidate_launch
        except AttributeError:
            raise SwapError(f"{self.so_path}: exports no vxsynth_candidate_launch (not a vxsynth candidate)") from None
        self._launch.restype = ctypes.c_int
        self._launch.argtypes = [ctypes.POINTER(Problem), ctypes.POINTER(Buffers), ctypes.c_void_p]
        self._workspace = getattr(self.lib, "vxsynth_candidate_workspace_bytes", None)
        if self._workspace is not None:
            self._workspace.restype = ctypes.c_size_t
            self._workspace.argtypes = [ctypes.POINTER(Problem)]

    def launch(self, launch: Launch, stream: int) -> int:
        p = launch.problem
        workspace = None
        nbytes = int(self._workspace(ctypes.byref(p))) if self._workspace is not None else 0
        if nbytes:
            workspace = torch.empty(nbytes, dtype=torch.uint8, device=launch.out.device)
        buffers = Buffers(_ptr(launch.a), _ptr(launch.b), _ptr(launch.bias), _ptr(launch.out),
                          _ptr(workspace), nbytes)
        launch.workspace = workspace  # alive until the caller drops the launch
        return int(self._launch(ctypes.byref(p), ctypes.byref(buffers), stream))


# ---------------------------------------------------------------------------------------------
# The dispatch mode.

@dataclass
class DispatchRecord:
    index: int
    op: str
    shapes: str
    decision: str            # "swapped", "original", "declined" (candidate said unsupported)
    pair: str | None = None
    candidate: str | None = None
    reason: str = ""
    copied: list[str] = field(default_factory=list)
    module: str | None = None

    def as_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items()}


INTERCEPTED = {"addmm", "mm", "bmm", "convolution"}


class Swap(TorchDispatchMode):
    """Sends calls that match a pair to its candidate; `check=True` also runs the original op on
    every swapped call and keeps both outputs (`self.checked`) for the tolerance check."""

    def __init__(self, pairs: list[Pair], *, check: bool = False, allow_cpu: bool = False,
                 keep_outputs: int = 2, profile_windows: bool = False):
        super().__init__()
        self.profile_windows = profile_windows
        self.windows: list[str] = []  # pairs whose first swapped call was wrapped, in order
        self.pairs = pairs
        self.check = check
        self.allow_cpu = allow_cpu
        self.keep_outputs = keep_outputs
        self.log: list[DispatchRecord] = []
        self.checked: dict[str, list[dict]] = {}
        self._candidates: dict[str, Candidate] = {}
        self._index: dict[CallKey, Pair] = {}
        for pair in pairs:
            for key in pair.keys:
                if key in self._index and self._index[key].name != pair.name:
                    raise SwapError(f"pairs {self._index[key].name} and {pair.name} both claim {key.describe()}")
                self._index[key] = pair

    def candidate(self, pair: Pair) -> Candidate:
        if pair.name not in self._candidates:
            if pair.so_path is None:
                raise SwapError(f"pair {pair.name}: no candidate shared object (expected {pair.name}/cuda/*.so, "
                                f"or pass one for it)")
            self._candidates[pair.name] = Candidate(pair.so_path, check_arch=not self.allow_cpu)
        return self._candidates[pair.name]

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        op = func.overloadpacket.__name__
        if op not in INTERCEPTED:
            return func(*args, **kwargs)
        key = CallKey.of_call(func, args)
        record = DispatchRecord(len(self.log), key.op, key.describe(with_op=False), "original")
        self.log.append(record)
        pair = self._index.get(key)
        if pair is None:
            record.reason = "matches no pair"
            return func(*args, **kwargs)
        if kwargs:
            record.reason = f"keyword arguments {sorted(kwargs)}"
            return func(*args, **kwargs)
        device = args[0].device if isinstance(args[0], torch.Tensor) else args[1].device
        if device.type != "cuda" and not self.allow_cpu:
            record.reason = f"tensors on {device}, candidates run on CUDA"
            return func(*args, **kwargs)
        record.pair = pair.name
        cand = self.candidate(pair)
        record.candidate = str(cand.so_path)
        launch = build_launch(func, args, key.math)
        record.copied = launch.copied
        stream = torch.cuda.current_stream(device).cuda_stream if device.type == "cuda" else 0
        window = self.profile_windows and pair.name not in self.windows
        if window:
            self._open_window(pair.name, device)
        status = cand.launch(launch, stream)
        if window:
            torch.cuda.synchronize(device)
            torch.cuda.profiler.stop()
        if status == LAUNCH_UNSUPPORTED:
            record.decision, record.reason = "declined", "candidate returned VXSYNTH_LAUNCH_UNSUPPORTED"
            return func(*args, **kwargs)
        if status != LAUNCH_OK:
            raise SwapError(f"pair {pair.name}: candidate {cand.so_path} failed on {key.describe()} (status {status})")
        record.decision = "swapped"
        out = launch.out
        if self.check:
            original = func(*args, **kwargs)
            kept = self.checked.setdefault(pair.name, [])
            entry = {"index": record.index, "shape": list(out.shape), "max_abs_diff":
                     float((out.float() - original.float()).abs().max()) if out.numel() else 0.0}
            if len(kept) < self.keep_outputs:
                entry["candidate"], entry["original"] = out.detach().cpu(), original.detach().cpu()
                entry["inputs"] = [a.detach().cpu() if isinstance(a, torch.Tensor) else a for a in args]
            kept.append(entry)
        return out

    MARKER = "vxswap marker"

    def _open_window(self, name: str, device):
        """A profiler window around one candidate launch, opened by a marker kernel (a fill of a
        one-element tensor: PyTorch's FillFunctor kernel) so that the parent can split ncu's
        rows by window even when a candidate launches several kernels."""
        torch.cuda.synchronize(device)
        self.windows.append(name)
        torch.cuda.profiler.start()
        torch.empty(1, device=device).fill_(float(len(self.windows)))

    def counts(self) -> dict[str, int]:
        c: dict[str, int] = {}
        for r in self.log:
            if r.decision == "swapped":
                c[r.pair] = c.get(r.pair, 0) + 1
        return c


class Exact(TorchDispatchMode):
    """Computes the calls that match a pair in float64 (inputs upcast, one rounding to the call's
    dtype at the end): the model as it would be with exact GEMMs and convolutions there. The
    final-output bound of the in-workload check is derived from it (docs/swap.md)."""

    def __init__(self, pairs: list[Pair]):
        super().__init__()
        self.keys = {key for pair in pairs for key in pair.keys}
        self.count = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func.overloadpacket.__name__ not in INTERCEPTED or CallKey.of_call(func, args) not in self.keys:
            return func(*args, **kwargs)
        self.count += 1
        dtype = next(a.dtype for a in args if isinstance(a, torch.Tensor))
        wide = [a.double() if isinstance(a, torch.Tensor) else a for a in args]
        return func(*wide, **kwargs).to(dtype)


# ---------------------------------------------------------------------------------------------
# Command line: python3 -m vxsynth.swap --model pi0 --suite suite/vx-robotics/h200 [--profile]

def _log(msg: str):
    import sys
    print(f"swap: {msg}", file=sys.stderr, flush=True)


def _run(cmd: list[str], **kw):
    import subprocess
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        raise SwapError(f"`{' '.join(cmd)}` exited {proc.returncode}: {(proc.stderr or proc.stdout).strip()[:2000]}")
    return proc.stdout


def build_seed_candidates(pairs: list[Pair], vxsynth: str, workdir: Path) -> None:
    """For pairs without a shared object: generate the seed design's CUDA candidate from the
    reference (`vxsynth gen --reference`) and build it (`vxsynth gpu build`: the harness's own
    nvcc flags and sandbox check)."""
    for pair in pairs:
        if pair.so_path is not None:
            continue
        ref = Path(pair.reference.get("_path", "")) if pair.reference.get("_path") else None
        gen_dir = workdir / "gen" / pair.name
        _run([vxsynth, "gen", "--reference", str(ref), "--out", str(gen_dir)])
        sources = sorted((gen_dir / "cuda").glob("*.cu"))
        if not sources:
            raise SwapError(f"{gen_dir}/cuda: vxsynth gen wrote no .cu for {pair.name}")
        out = _run([vxsynth, "gpu", "build", str(sources[0]), "--cache-dir", str(workdir / "cache")])
        for line in out.splitlines():
            if line.startswith(str(sources[0]) + ": ") and line.split(": ", 1)[1].split(" ")[0].endswith(".so"):
                pair.so_path = Path(line.split(": ", 1)[1].split(" ")[0])
        if pair.so_path is None:
            raise SwapError(f"vxsynth gpu build {sources[0]}: no shared object in its output:\n{out}")


def _final_tensor(out):
    if isinstance(out, torch.Tensor):
        return out
    if isinstance(out, dict):
        return next(v for v in out.values() if isinstance(v, torch.Tensor))
    if isinstance(out, (tuple, list)):
        return next(v for v in out if isinstance(v, torch.Tensor))
    raise SwapError(f"model output of type {type(out).__name__} holds no tensor")


def output_bound(original: torch.Tensor, exact: torch.Tensor) -> float:
    """Largest change of the final output that the swap may cause. The vendor's ops and the
    candidate's each lie within their own rounding error of the exact ops; the vendor's effect on
    the output is |original - exact|, and a candidate checked against the same tolerance has an
    effect of the same order, so the two differ by at most twice the vendor's (plus one output
    rounding step of the output's dtype, for outputs the ops barely touch)."""
    o, e = original.double(), exact.double()
    ulp = torch.finfo(original.dtype).eps * o.abs().max().clamp_min(1e-30)
    return float(2 * (o - e).abs().max() + ulp)


def op_spec_file(workdir: Path, name: str) -> Path:
    """The op spec (vxsynth.op/1) of a pair, taken from the design that `vxsynth gen` wrote."""
    design = workdir / "gen" / name / "design.json"
    if not design.is_file():
        raise SwapError(f"{design}: missing (vxsynth gen --reference writes it)")
    op_path = design.parent / "op.json"
    if not op_path.is_file():
        op_path.write_text(json.dumps(json.loads(design.read_text())["op"], indent=1))
    return op_path


def check_outputs(swap: Swap, vxsynth: str, workdir: Path) -> dict[str, dict]:
    """Each kept swapped call: `vxsynth check --check source` of the candidate's output against
    the original operator's, with the op's tolerance (the op spec from `vxsynth gen`)."""
    from . import tensor_file
    results: dict[str, dict] = {}
    for name, entries in swap.checked.items():
        worst = None
        for entry in entries:
            if "candidate" not in entry:
                continue
            folder = workdir / "check" / name / str(entry["index"])
            folder.mkdir(parents=True, exist_ok=True)
            op_spec = op_spec_file(workdir, name)
            for which in ("candidate", "original"):
                tensor_file.write_tensor(str(folder / f"{which}.tensor"), tensor_file.from_torch(entry[which], name="y"))
            report_path = folder / "check.json"
            import subprocess
            subprocess.run([vxsynth, "check", "--op", str(op_spec), "--expected", str(folder / "original.tensor"),
                            "--actual", str(folder / "candidate.tensor"), "--check", "source", "--json",
                            str(report_path)], capture_output=True, text=True)
            if not report_path.is_file():
                raise SwapError(f"vxsynth check wrote no report for {name} call {entry['index']}")
            report = json.loads(report_path.read_text())
            if worst is None or report.get("worst_ratio", 0) > worst.get("worst_ratio", 0):
                worst = report
        results[name] = worst or {}
    return results


def split_windows(rows: list[dict], names: list[str]) -> dict[str, list[dict]]:
    """ncu rows of the child's profiler windows, per pair: each window starts with the marker
    fill kernel; the rows after it up to the next marker are the candidate's kernels."""
    per: dict[str, list[dict]] = {}
    current = -1
    for row in rows:
        if "FillFunctor" in row.get("Kernel Name", ""):
            current += 1
            continue
        if current < 0:
            raise SwapError("ncu rows before the first marker kernel: the profile does not come from the swap child")
        if current >= len(names):
            raise SwapError(f"ncu shows {current + 1} windows, the child opened {len(names)}")
        per.setdefault(names[current], []).append(row)
    return per


def primary_row(rows: list[dict]) -> dict:
    """The candidate's main kernel among a window's rows (the GEMM/conv body, not its padding,
    split-K reduction or transform passes): the one named gemm, else the longest."""
    for row in rows:
        if "gemm(" in row.get("Kernel Name", ""):
            return row
    def duration(r):
        try:
            return float(str(r.get("gpu__time_duration.sum", "0")).replace(",", ""))
        except ValueError:
            return 0.0
    return max(rows, key=duration)


def profile_in_workload(args, pairs: list[Pair]) -> dict[str, dict]:
    """ncu over a child process that runs the swapped model once (after a warm-up) with one
    profiler window around the first swapped call of each pair; D of each candidate's kernel in
    the workload against its reference."""
    import os
    import subprocess
    import sys
    from . import ncu_rows
    from .capture import CACHE_CONTROL, CLOCK_CONTROL
    metrics = _run([args.vxsynth, "signature", "--metrics-list"]).strip()
    out = args.out / "profile"
    out.mkdir(parents=True, exist_ok=True)
    child = [sys.executable, "-m", "vxsynth.swap", "--ncu-child", "--model", args.model, "--suite", str(args.suite),
             "--out", str(args.out), "--seed", str(args.seed), "--vxsynth", args.vxsynth]
    if args.config:
        child += ["--config", args.config]
    for pair in pairs:
        child += ["--so", f"{pair.name}={pair.so_path}"]
    cmd = [args.ncu, "--target-processes", "all", "--profile-from-start", "off", "--clock-control", CLOCK_CONTROL,
           "--cache-control", CACHE_CONTROL, "--csv", "--page", "raw", "--print-units", "base", "--metrics",
           metrics, *child]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1]) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    with open(out / "ncu.csv", "w") as stdout, open(out / "ncu.log", "w") as stderr:
        proc = subprocess.run(cmd, stdout=stdout, stderr=stderr, env=env, timeout=1800)
    if proc.returncode != 0:
        raise SwapError(f"ncu exited {proc.returncode}; see {out / 'ncu.log'}")
    names = json.loads((out / "windows.json").read_text())["windows"]
    per = split_windows(ncu_rows.read_rows(str(out / "ncu.csv")), names)
    result: dict[str, dict] = {}
    for pair in pairs:
        rows = per.get(pair.name)
        if not rows:
            result[pair.name] = {"error": "not profiled (no swapped call)"}
            continue
        row = primary_row(rows)
        report = json.loads(_run([args.vxsynth, "distance", f"{out / 'ncu.csv'}#id={row['ID']}",
                                  str(args.suite / pair.name / "reference.json"), "--json"]))
        entry = {"kernel": row.get("Kernel Name"), "ncu_id": row["ID"], "d_in_workload": report["distance"]["D"],
                 "metric_distances": report["distance"]["metrics"]}
        harness_sig = args.suite / pair.name / "signature.json"
        if harness_sig.is_file():
            sig = json.loads(harness_sig.read_text())
            if sig.get("schema") == "vxsynth.locked-signature/1":
                # A locked pair (`vxsynth suite lock`): D measured in the harness at lock time,
                # the mean of its repeat profiles when there are.
                entry["d_in_harness"] = sig.get("repeats", {}).get("d_mean", sig["d"])
                entry["locked"] = True
            else:
                h = json.loads(_run([args.vxsynth, "distance", str(harness_sig),
                                     str(args.suite / pair.name / "reference.json"), "--json"]))
                entry["d_in_harness"] = h["distance"]["D"]
        result[pair.name] = entry
    return result


def ncu_child(args, pairs: list[Pair]) -> None:
    from . import models
    w = models.get(args.model)
    cfg = w.config(args.config)
    model = w.build(cfg, "cuda", seed=args.seed)
    inputs = w.make_inputs(cfg, "cuda", seed=args.seed)
    with Swap(pairs):
        w.infer(model, inputs)  # warm-up: module loads, first-call allocations
    torch.cuda.synchronize()
    with Swap(pairs, profile_windows=True) as s:
        w.infer(model, inputs)
    torch.cuda.synchronize()
    (args.out / "profile").mkdir(parents=True, exist_ok=True)
    (args.out / "profile" / "windows.json").write_text(json.dumps({"windows": s.windows}))


def main(argv=None) -> int:
    import argparse
    import sys
    from . import models
    ap = argparse.ArgumentParser(prog="python3 -m vxsynth.swap", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True, choices=sorted(models.WORKLOADS))
    ap.add_argument("--suite", required=True, type=Path, help="suite folder (benchmark folders with reference.json)")
    ap.add_argument("--config", help="model config (default: the workload's default)")
    ap.add_argument("--so", action="append", default=[], metavar="NAME=PATH",
                    help="candidate shared object of benchmark NAME (default: NAME/cuda/*.so)")
    ap.add_argument("--only", action="append", default=[], metavar="NAME",
                    help="swap only these benchmarks (repeatable; default: every benchmark of the workload)")
    ap.add_argument("--seeds", action="store_true",
                    help="generate and build the seed candidate of every pair that has no shared object")
    ap.add_argument("--vxsynth", default=str(Path(__file__).resolve().parents[2] / "build" / "vxsynth"))
    ap.add_argument("--out", type=Path, default=Path("swap-out"))
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, help="write the dispatch log and the tables as JSON")
    ap.add_argument("--profile", action="store_true",
                    help="also profile each swapped kernel inside the model with ncu and report its D")
    ap.add_argument("--ncu", default=shutil.which("ncu") or "/usr/local/cuda/bin/ncu")
    ap.add_argument("--ncu-child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    try:
        shared = {}
        for item in args.so:
            name, _, path = item.partition("=")
            if not path:
                raise SwapError(f"--so {item}: expected NAME=PATH")
            shared[name] = Path(path)
        skipped: list[str] = []
        pairs = load_suite(args.suite, shared, only=args.model, skipped=skipped)
        for note in skipped:
            _log(f"not swapped: {note}")
        for pair in pairs:
            pair.reference["_path"] = str(args.suite / pair.name / "reference.json")
        if args.only:
            unknown = sorted(set(args.only) - {p.name for p in pairs})
            if unknown:
                raise SwapError(f"--only {', '.join(unknown)}: not a swappable benchmark of {args.model} in {args.suite} "
                                f"(expected one of {', '.join(p.name for p in pairs)})")
            pairs = [p for p in pairs if p.name in args.only]
        if not pairs:
            raise SwapError(f"{args.suite}: no benchmark of workload {args.model}")
        args.out.mkdir(parents=True, exist_ok=True)
        if args.ncu_child:
            ncu_child(args, pairs)
            return 0
        if args.seeds:
            build_seed_candidates(pairs, args.vxsynth, args.out)
        for pair in pairs:
            if not (args.out / "gen" / pair.name / "design.json").is_file():
                _run([args.vxsynth, "gen", "--reference", pair.reference["_path"], "--out",
                      str(args.out / "gen" / pair.name)])
        w = models.get(args.model)
        cfg = w.config(args.config)
        model = w.build(cfg, args.device, seed=args.seed)
        inputs = w.make_inputs(cfg, args.device, seed=args.seed)
        original = _final_tensor(w.infer(model, inputs))
        with Exact(pairs) as exact:
            exact_out = _final_tensor(w.infer(model, inputs))
        with Swap(pairs, check=True, allow_cpu=args.device == "cpu") as swap:
            swapped = _final_tensor(w.infer(model, inputs))
        if args.device == "cuda":
            torch.cuda.synchronize()
        checks = check_outputs(swap, args.vxsynth, args.out)
        profile = profile_in_workload(args, pairs) if args.profile else {}
    except (SwapError, ValueError) as e:
        print(f"swap: error: {e}", file=sys.stderr)
        return 2
    counts = swap.counts()
    print(f"{'benchmark':32} {'calls swapped':>13} {'worst error / allowed':>22}  check")
    failed = 0
    for pair in pairs:
        rep = checks.get(pair.name, {})
        ratio = rep.get("worst_ratio")
        ok = rep.get("passed")
        failed += ok is False or counts.get(pair.name, 0) == 0
        print(f"{pair.name:32} {counts.get(pair.name, 0):>13} {('%.3g' % ratio) if ratio is not None else 'n/a':>22}  "
              f"{'passed' if ok else ('FAILED' if ok is False else 'not run')}")
    change = float((swapped.double() - original.double()).abs().max())
    bound = output_bound(original, exact_out)
    print(f"final output: max |swapped - original| = {change:.3e}, bound {bound:.3e} "
          f"(2 x |original - exact-op model| = {2 * float((original.double() - exact_out.double()).abs().max()):.3e})"
          f" -> {'within' if change <= bound else 'OUTSIDE'}")
    if profile:
        print(f"{'benchmark':32} {'D in workload':>13} {'D in harness':>13}  kernel")
        for pair in pairs:
            e = profile.get(pair.name, {})
            fmt = lambda v: f"{v:.4f}" if isinstance(v, (int, float)) else "n/a"
            print(f"{pair.name:32} {fmt(e.get('d_in_workload')):>13} {fmt(e.get('d_in_harness')):>13}  "
                  f"{e.get('kernel', e.get('error', ''))}")
    unmatched = sum(1 for r in swap.log if r.decision == "original")
    print(f"dispatch log: {len(swap.log)} intercepted calls, {sum(counts.values())} swapped, {unmatched} to the original")
    if args.json:
        args.json.write_text(json.dumps({"schema": "vxsynth.swap/1", "model": args.model,
                                         "log": [r.as_dict() for r in swap.log],
                                         "checks": checks, "profile": profile,
                                         "final": {"change": change, "bound": bound}}, indent=1))
    return 0 if failed == 0 and change <= bound else 1


if __name__ == "__main__":
    import sys
    sys.exit(main())
