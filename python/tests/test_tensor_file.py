"""python/vxsynth/tensor_file.py: the tensor file format shared with C++ (docs/ops.md)."""
import json
import math
import struct
import subprocess
from pathlib import Path

import pytest

from vxsynth import tensor_file as tf

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "ops"
VALUES = [1.0, -2.5, 0.1, 65519.0, 1e-8, -0.0, 3.0e38, float("inf")]
DTYPES = ("float32", "bfloat16", "float16")


@pytest.mark.parametrize("dtype", DTYPES)
def test_reads_files_written_by_cpp(dtype):
    t = tf.read_tensor(DATA / f"interop_cpp_{dtype}.tensor")
    assert t.dtype == dtype and t.shape == [3, 3] and t.name == "interop"
    assert t.seed == 12345678901234567  # beyond 2^53: must not go through a float
    mine = tf.from_values(VALUES + [0.0], dtype, [3, 3])
    assert list(t.bits())[:8] == list(mine.bits())[:8]
    assert t.unwritten_indices() == [8]
    vals = t.to_list()
    assert math.isnan(vals[8]) and vals[0] == 1.0 and vals[1] == -2.5
    assert math.copysign(1.0, vals[5]) == -1.0
    # the file the Python writer produces is byte-identical to the C++ one
    assert (DATA / f"interop_py_{dtype}.tensor").read_bytes() == (DATA / f"interop_cpp_{dtype}.tensor").read_bytes()


def test_expected_roundings():
    assert tf.float_to_f16_bits(65519.0) == 0x7BFF  # below the 65520 midpoint
    assert tf.float_to_f16_bits(65520.0) == 0x7C00  # ties to even -> infinity
    assert tf.float_to_f16_bits(-1e6) == 0xFC00
    assert tf.float_to_bf16_bits(1.0 + 2 ** -8) == 0x3F80  # tie -> even
    assert tf.float_to_bf16_bits(1.0 + 3 * 2 ** -8) == 0x3F82  # tie -> even (up)
    assert tf.float_to_bf16_bits(1e39) == 0x7F80
    nan_bits = tf.float_to_bf16_bits(float("nan"))
    assert (nan_bits & 0x7FFF) > 0x7F80 and nan_bits & 0x40


def test_bf16_exhaustive_round_trip():
    for b in range(1 << 16):
        v = tf.bf16_bits_to_float(b)
        if math.isnan(v):
            continue
        assert tf.float_to_bf16_bits(v) == b


@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip_and_alignment(tmp_path, dtype):
    t = tf.from_values([0.5 * i - 3 for i in range(2 * 3 * 5)], dtype, [2, 3, 5], "x", seed=7)
    p = tmp_path / "x.tensor"
    tf.write_tensor(str(p), t)
    blob = p.read_bytes()
    (hlen,) = struct.unpack("<Q", blob[8:16])
    assert (16 + hlen) % 64 == 0
    assert json.loads(blob[16:16 + hlen])["schema"] == "vxsynth.tensor/1"
    r = tf.read_tensor(str(p))
    assert r.shape == [2, 3, 5] and r.seed == 7 and r.data == t.data
    assert r.to_list() == [0.5 * i - 3 for i in range(30)]  # all exact in every dtype


def test_poisoned_buffer():
    y = tf.poisoned("bfloat16", [4, 5])
    assert y.unwritten_indices() == list(range(20))
    assert all(math.isnan(v) for v in y.to_list())


def test_bad_files(tmp_path):
    good = tmp_path / "good.tensor"
    tf.write_tensor(str(good), tf.from_values([1, 2, 3, 4], "float32", [2, 2]))
    blob = good.read_bytes()
    cases = {
        "magic": b"NOTATENSOR" + blob[10:],
        "data": blob[:-1],
        "header": blob[:20],
    }
    for field_name, content in cases.items():
        p = tmp_path / f"{field_name}.tensor"
        p.write_bytes(content)
        with pytest.raises(tf.TensorFileError) as e:
            tf.read_tensor(str(p))
        assert e.value.field == field_name and str(p) in str(e.value)
    p = tmp_path / "trailing.tensor"
    p.write_bytes(blob + b"x")
    with pytest.raises(tf.TensorFileError, match="data"):
        tf.read_tensor(str(p))
    p = tmp_path / "dtype.tensor"
    p.write_bytes(blob.replace(b"float32", b"float64"))
    with pytest.raises(tf.TensorFileError, match="float64"):
        tf.read_tensor(str(p))
    with pytest.raises(tf.TensorFileError, match="cannot open"):
        tf.read_tensor(str(tmp_path / "missing.tensor"))


def test_numpy_views():
    np = pytest.importorskip("numpy")
    t = tf.read_tensor(DATA / "interop_cpp_bfloat16.tensor")
    a = t.to_numpy()
    assert a.dtype == np.float32 and a.shape == (3, 3)
    assert a[0, 0] == 1.0 and a[0, 1] == -2.5 and np.isnan(a[2, 2])


def test_torch_bit_exact_both_ways(tmp_path):
    torch = pytest.importorskip("torch")
    for dtype, tdt in (("float32", torch.float32), ("bfloat16", torch.bfloat16), ("float16", torch.float16)):
        t = tf.read_tensor(DATA / f"interop_cpp_{dtype}.tensor")
        x = t.to_torch()
        assert x.dtype == tdt and list(x.shape) == [3, 3]
        back = tf.from_torch(x, name="interop", seed=t.seed)
        assert back.data == t.data  # poison payload included
        y = torch.randn(4, 7).to(tdt)
        p = tmp_path / f"{dtype}.tensor"
        tf.write_tensor(str(p), tf.from_torch(y))
        assert torch.equal(tf.read_tensor(str(p)).to_torch(), y)


# ---- the C++ reference against PyTorch's own operators (float64), through tensor files

def _run_ref(vxsynth_bin, tmp_path, op):
    op_path = tmp_path / "op.json"
    op_path.write_text(json.dumps(op))
    out = tmp_path / "ref"
    subprocess.run([vxsynth_bin, "ref", "--op", str(op_path), "--seed", "3", "--out", str(out)], check=True,
                   capture_output=True)
    return out


OPS = [
    {"kind": "linear", "precision": "bf16",
     "linear": {"m": 9, "n": 13, "k": 70, "bias": True, "activation": "gelu_tanh"}},
    {"kind": "matmul", "precision": "fp32",
     "matmul": {"batch_a": [2, 1], "batch_b": [3], "m": 5, "n": 4, "k": 6, "transpose_a": True, "transpose_b": False}},
    {"kind": "conv2d", "precision": "fp16",
     "conv": {"batch": 2, "in_channels": 4, "out_channels": 6, "input_size": [9, 8], "kernel": [3, 2],
              "stride": [2, 1], "padding": [1, 1], "dilation": [1, 2], "groups": 2, "bias": True, "layout": "NCHW"}},
    {"kind": "conv2d", "precision": "tf32",
     "conv": {"batch": 1, "in_channels": 3, "out_channels": 5, "input_size": [7, 6], "kernel": [3, 3],
              "stride": [1, 2], "padding": [1, 0], "groups": 1, "bias": False, "layout": "NHWC", "activation": "relu"}},
    {"kind": "conv1d", "precision": "bf16",
     "conv": {"batch": 2, "in_channels": 6, "out_channels": 4, "input_size": 11, "kernel": 5, "stride": 2,
              "padding": 2, "groups": 2, "bias": True, "layout": "NLC", "activation": "silu"}},
]


@pytest.mark.parametrize("op", OPS, ids=lambda o: o["kind"] + "-" + o.get("conv", {}).get("layout", o["precision"]))
def test_cpp_reference_matches_torch(vxsynth_bin, tmp_path, op):
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    op = {"schema": "vxsynth.op/1", **op}
    out = _run_ref(vxsynth_bin, tmp_path, op)
    files = {p.stem: tf.read_tensor(str(p)) for p in out.glob("*.tensor")}
    d = lambda name: files[name].to_torch().double()  # noqa: E731
    y_ref = files["y_ref"].to_torch()
    if op["precision"] == "tf32":  # the CPU reference sees tf32-rounded operands (round to nearest)
        def tf32(x):
            bits = x.float().contiguous().view(torch.int32)
            return ((bits + 0x1000) & ~0x1FFF).view(torch.float32).double()
        d = lambda name, _d=d: tf32(files[name].to_torch()) if name != "bias" else _d(name)  # noqa: E731
    kind = op["kind"]
    if kind == "linear":
        p = op["linear"]
        y = F.linear(d("x"), d("weight"), d("bias") if p["bias"] else None)
        act = p.get("activation", "none")
    elif kind == "matmul":
        p = op["matmul"]
        a, b = d("a"), d("b")
        y = torch.matmul(a.transpose(-1, -2) if p["transpose_a"] else a, b.transpose(-1, -2) if p["transpose_b"] else b)
        act = "none"
    else:
        p = op["conv"]
        last = p["layout"] in ("NHWC", "NLC")
        x, w = d("input"), d("weight")
        if last:  # files hold the physical channels-last order; torch wants logical NC...
            x = x.movedim(-1, 1)
            w = w.movedim(-1, 1)
        conv = F.conv2d if kind == "conv2d" else F.conv1d
        y = conv(x, w, d("bias") if p.get("bias") else None, stride=p.get("stride", 1), padding=p.get("padding", 0),
                 dilation=p.get("dilation", 1), groups=p.get("groups", 1))
        if last:
            y = y.movedim(1, -1)
        act = p.get("activation", "none")
    y = {"none": lambda v: v, "relu": F.relu, "silu": F.silu,
         "gelu_tanh": lambda v: F.gelu(v, approximate="tanh")}[act](y)
    assert list(y.shape) == list(y_ref.shape)
    want = y.to(y_ref.dtype).double()
    got = y_ref.double()
    # one rounding each from (nearly) the same fp64 value: equal, or one output ulp apart at a tie
    ulp = {torch.bfloat16: 2 ** -7, torch.float16: 2 ** -10, torch.float32: 2 ** -23}[y_ref.dtype]
    assert torch.all((got - want).abs() <= ulp * want.abs() + 1e-30), (got - want).abs().max()
    assert (got == want).double().mean() > 0.99


# ---- live round trip with today's C++ binary (the committed interop files pin the format; these
# catch a writer or reader on either side drifting from docs/ops.md "Tensor files")

TRANSFORMS = [  # odd sizes; the check of a transform is bit for bit, so every element counts
    {"kind": "layout_transform", "precision": "fp32",
     "transform": {"batch": 3, "channels": 7, "spatial": [5, 3], "from": "NCHW", "to": "NHWC", "tensor": "activation"}},
    {"kind": "layout_transform", "precision": "bf16",
     "transform": {"batch": 2, "channels": 9, "spatial": [11], "from": "NLC", "to": "NCL", "tensor": "weight"}},
    {"kind": "layout_transform", "precision": "fp16",
     "transform": {"batch": 1, "channels": 13, "spatial": [3, 7], "from": "NHWC", "to": "NCHW", "tensor": "activation"}},
]


def _check(vxsynth_bin, tmp_path, op_path, expected, actual):
    report = tmp_path / "check.json"
    r = subprocess.run([vxsynth_bin, "check", "--op", str(op_path), "--expected", str(expected), "--actual", str(actual),
                        "--json", str(report)], capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, json.loads(report.read_text())


@pytest.mark.parametrize("op", TRANSFORMS, ids=lambda o: o["precision"])
def test_live_round_trip_with_cpp(vxsynth_bin, tmp_path, op):
    op = {"schema": "vxsynth.op/1", **op}
    out = _run_ref(vxsynth_bin, tmp_path, op)
    op_path = tmp_path / "op.json"
    written = sorted(out.glob("*.tensor"))
    assert {p.stem for p in written} >= {"x", "y_ref", "y_poison"}
    for p in written:
        # C++ wrote it; Python reads it and writes the same tensor back byte for byte.
        t = tf.read_tensor(str(p))
        assert t.dtype == {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}[op["precision"]]
        assert t.numel > 1 and len(t.data) == t.numel * tf.ITEMSIZE[t.dtype]
        again = tmp_path / f"py_{p.name}"
        tf.write_tensor(str(again), tf.Tensor(t.dtype, t.shape, t.data, t.name, t.seed))
        assert again.read_bytes() == p.read_bytes(), p.name
    y = tf.read_tensor(str(out / "y_ref.tensor"))
    assert y.unwritten_indices() == []
    # Python writes; C++ reads: the copy checks bit for bit, and a copy with one element's low bit
    # flipped fails at exactly that element (so C++ sees Python's elements where Python put them).
    copy = tmp_path / "copy.tensor"
    tf.write_tensor(str(copy), tf.Tensor(y.dtype, y.shape, y.data, "copy"))
    code, report = _check(vxsynth_bin, tmp_path, op_path, out / "y_ref.tensor", copy)
    assert code == 0 and report["bit_mismatches"] == 0 and report["count"] == y.numel
    bits = y.bits()
    at = (7 * y.numel) // 11
    bits[at] ^= 1
    if struct.pack("=H", 1) != struct.pack("<H", 1):
        bits.byteswap()
    flipped = tmp_path / "flipped.tensor"
    tf.write_tensor(str(flipped), tf.Tensor(y.dtype, y.shape, bits.tobytes(), "flipped"))
    code, report = _check(vxsynth_bin, tmp_path, op_path, out / "y_ref.tensor", flipped)
    assert code == 1 and report["bit_mismatches"] == 1 and report["worst_index"] == at, report
    # Python's poisoned buffer is C++'s: every element reads as unwritten there.
    poison = tmp_path / "poison.tensor"
    tf.write_tensor(str(poison), tf.poisoned(y.dtype, y.shape))
    assert poison.read_bytes()[-len(y.data):] == (out / "y_poison.tensor").read_bytes()[-len(y.data):]
    code, report = _check(vxsynth_bin, tmp_path, op_path, out / "y_ref.tensor", poison)
    assert code == 1 and report["unwritten"] == y.numel
