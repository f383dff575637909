"""Tensor files shared with the C++ side (docs/ops.md, "Tensor files").

Layout of one file:
    bytes 0..7    b"VXTENSOR"
    bytes 8..15   header length H, uint64 little-endian
    bytes 16..    H bytes of UTF-8 JSON, space-padded so that 16 + H is a multiple of 64:
                  {"schema": "vxsynth.tensor/1", "name", "dtype", "shape", "byte_order": "little", "seed"}
    then          the elements, row-major, little-endian; nothing after.

dtype is "float32", "bfloat16" or "float16". Works with the standard library alone; numpy and
torch are used when present (`to_numpy`, `to_torch`, `write_tensor` accepting arrays/tensors).
An output buffer is poisoned with a quiet NaN of a fixed payload (POISON_BITS) before a kernel
runs; elements that still hold it afterwards were never written (`unwritten_indices`).
"""
from __future__ import annotations

import json
import math
import os
import struct
from array import array
from dataclasses import dataclass, field
from typing import Iterable, List, Optional, Sequence

MAGIC = b"VXTENSOR"
SCHEMA = "vxsynth.tensor/1"
ALIGN = 64
ITEMSIZE = {"float32": 4, "bfloat16": 2, "float16": 2}
POISON_BITS = {"float32": 0x7FC0DEAD, "bfloat16": 0x7FDE, "float16": 0x7EDE}
_DTYPE_ALIASES = {"f32": "float32", "bf16": "bfloat16", "f16": "float16"}


class TensorFileError(ValueError):
    """A tensor file that cannot be read: names the file and the field."""

    def __init__(self, path: str, field_name: str, what: str):
        super().__init__(f"{path}: {field_name}: {what}")
        self.path, self.field, self.what = path, field_name, what


# ---------------------------------------------------------------- scalar conversions (RNE)

def f32_bits(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


def bits_f32(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def float_to_bf16_bits(value: float) -> int:
    """Round to nearest even (fp64 -> fp32 -> bf16 is exact for fp32 inputs); NaN stays quiet."""
    try:
        x = f32_bits(value)
    except OverflowError:  # |value| beyond fp32: infinity
        return 0xFF80 if value < 0 else 0x7F80
    if (x & 0x7FFFFFFF) > 0x7F800000:
        return ((x >> 16) | 0x40) & 0xFFFF
    x += 0x7FFF + ((x >> 16) & 1)
    return (x >> 16) & 0xFFFF


def bf16_bits_to_float(bits: int) -> float:
    return bits_f32((bits & 0xFFFF) << 16)


def float_to_f16_bits(value: float) -> int:
    """struct's 'e' rounds to nearest even; it refuses overflow, which IEEE rounds to infinity."""
    try:
        return struct.unpack("<H", struct.pack("<e", value))[0]
    except OverflowError:
        return 0xFC00 if value < 0 else 0x7C00


def f16_bits_to_float(bits: int) -> float:
    return struct.unpack("<e", struct.pack("<H", bits & 0xFFFF))[0]


def _canonical_dtype(dtype: str) -> str:
    dtype = _DTYPE_ALIASES.get(dtype, dtype)
    if dtype not in ITEMSIZE:
        raise ValueError(f"unknown dtype {dtype!r} (expected float32, bfloat16 or float16)")
    return dtype


# ---------------------------------------------------------------- the tensor

@dataclass
class Tensor:
    dtype: str
    shape: List[int]
    data: bytes
    name: str = ""
    seed: Optional[int] = None
    header: dict = field(default_factory=dict)

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    def bits(self) -> array:
        """Raw element bits: array('I') for float32, array('H') for the 16-bit types."""
        a = array("I" if self.dtype == "float32" else "H")
        a.frombytes(self.data)
        if struct.pack("=H", 1) != struct.pack("<H", 1):
            a.byteswap()
        return a

    def to_list(self) -> List[float]:
        """Values widened to Python floats (exact), flat, row-major."""
        if self.dtype == "float32":
            return list(struct.unpack(f"<{self.numel}f", self.data))
        if self.dtype == "float16":
            return list(struct.unpack(f"<{self.numel}e", self.data))
        return [bf16_bits_to_float(b) for b in self.bits()]

    def unwritten_indices(self) -> List[int]:
        """Flat indices that still hold the poison bits."""
        p = POISON_BITS[self.dtype]
        return [i for i, b in enumerate(self.bits()) if b == p]

    def to_numpy(self):
        """float32 (or float16) numpy array of the shape; bfloat16 is widened to float32 exactly."""
        import numpy as np
        if self.dtype == "float32":
            return np.frombuffer(self.data, dtype="<f4").reshape(self.shape).copy()
        if self.dtype == "float16":
            return np.frombuffer(self.data, dtype="<f2").reshape(self.shape).copy()
        raw = np.frombuffer(self.data, dtype="<u2").astype(np.uint32) << 16
        return raw.view(np.float32).reshape(self.shape)

    def to_torch(self):
        """A torch tensor of the file's own dtype (bfloat16 kept as bfloat16, bit for bit)."""
        import torch
        raw = bytearray(self.data)
        if self.dtype == "float32":
            t = torch.frombuffer(raw, dtype=torch.float32) if raw else torch.empty(0, dtype=torch.float32)
        else:
            t16 = torch.frombuffer(raw, dtype=torch.int16) if raw else torch.empty(0, dtype=torch.int16)
            t = t16.view(torch.bfloat16 if self.dtype == "bfloat16" else torch.float16)
        return t.reshape(self.shape).clone()


def poisoned(dtype: str, shape: Sequence[int], name: str = "y") -> Tensor:
    """An output buffer full of poison, as a harness hands it to a kernel."""
    dtype = _canonical_dtype(dtype)
    n = math.prod(shape)
    fmt = "<I" if dtype == "float32" else "<H"
    return Tensor(dtype, list(shape), struct.pack(fmt, POISON_BITS[dtype]) * n, name)


def from_values(values: Iterable[float], dtype: str, shape: Sequence[int], name: str = "",
                seed: Optional[int] = None) -> Tensor:
    """Rounds Python floats (round to nearest even) into a tensor of the given dtype."""
    dtype = _canonical_dtype(dtype)
    vals = list(values)
    if len(vals) != math.prod(shape):
        raise ValueError(f"{len(vals)} values for shape {list(shape)}")
    if dtype == "float32":
        data = b"".join(struct.pack("<I", _f32_bits_rounded(v)) for v in vals)
    elif dtype == "float16":
        data = b"".join(struct.pack("<H", float_to_f16_bits(v)) for v in vals)
    else:
        data = b"".join(struct.pack("<H", float_to_bf16_bits(v)) for v in vals)
    return Tensor(dtype, list(shape), data, name, seed)


def _f32_bits_rounded(v: float) -> int:
    try:
        return f32_bits(v)
    except OverflowError:
        return 0xFF800000 if v < 0 else 0x7F800000


def from_torch(t, name: str = "", seed: Optional[int] = None) -> Tensor:
    """A contiguous copy of a float32 / bfloat16 / float16 torch tensor, bit for bit."""
    import torch
    names = {torch.float32: "float32", torch.bfloat16: "bfloat16", torch.float16: "float16"}
    if t.dtype not in names:
        raise ValueError(f"unsupported torch dtype {t.dtype} (expected float32, bfloat16 or float16)")
    c = t.detach().to("cpu").contiguous()
    raw = c.view(torch.int32 if t.dtype == torch.float32 else torch.int16).numpy().astype("<i4" if t.dtype == torch.float32 else "<i2")
    return Tensor(names[t.dtype], list(c.shape), raw.tobytes(), name, seed)


# ---------------------------------------------------------------- files

def write_tensor(path: str, tensor: Tensor) -> None:
    """Writes via a temporary file renamed into place (a reader never sees half a file)."""
    header = {"schema": SCHEMA, "name": tensor.name, "dtype": tensor.dtype, "shape": list(tensor.shape),
              "byte_order": "little", "seed": tensor.seed}
    if len(tensor.data) != tensor.numel * ITEMSIZE[tensor.dtype]:
        raise ValueError(f"{len(tensor.data)} bytes for {tensor.dtype} shape {tensor.shape}")
    text = json.dumps(header, separators=(",", ":")).encode()
    padded = -(-(16 + len(text)) // ALIGN) * ALIGN
    text += b" " * (padded - 16 - len(text))
    tmp = f"{path}.tmp"
    with open(tmp, "wb") as f:
        f.write(MAGIC + struct.pack("<Q", len(text)) + text + tensor.data)
    os.replace(tmp, path)


def read_tensor(path: str) -> Tensor:
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError as e:
        raise TensorFileError(str(path), "", f"cannot open tensor file ({e.strerror})") from e
    path = str(path)
    if len(blob) < 16 or blob[:8] != MAGIC:
        raise TensorFileError(path, "magic", 'not a vxsynth tensor file (expected the 8 bytes "VXTENSOR")')
    (hlen,) = struct.unpack("<Q", blob[8:16])
    if hlen == 0 or hlen > (1 << 20):
        raise TensorFileError(path, "header_length", f"implausible header length {hlen}")
    if len(blob) < 16 + hlen:
        raise TensorFileError(path, "header", "file ends inside the JSON header")
    try:
        header = json.loads(blob[16:16 + hlen].decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise TensorFileError(path, "header", f"JSON header does not parse: {e}") from e
    if not isinstance(header, dict) or header.get("schema") != SCHEMA:
        found = header.get("schema") if isinstance(header, dict) else None
        raise TensorFileError(path, "schema", f"found {found!r}, this reader reads {SCHEMA!r}")
    dtype = header.get("dtype")
    if dtype not in ITEMSIZE:
        raise TensorFileError(path, "dtype", f"unknown dtype {dtype!r} (expected float32, bfloat16 or float16)")
    if header.get("byte_order", "little") != "little":
        raise TensorFileError(path, "byte_order", 'only "little" is supported')
    shape = header.get("shape")
    if not isinstance(shape, list) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise TensorFileError(path, "shape", "dimensions must be non-negative integers")
    data = blob[16 + hlen:]
    want = math.prod(shape) * ITEMSIZE[dtype]
    if len(data) != want:
        raise TensorFileError(path, "data", f"expected {want} bytes of {dtype} data for shape {shape}, found {len(data)}")
    seed = header.get("seed")
    return Tensor(dtype, shape, data, header.get("name") or "", seed, header)
