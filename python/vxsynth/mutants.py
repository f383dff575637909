"""Mutated copies of a generated CUDA candidate, to show on the GPU that the equivalence checks
catch plausible bugs at the suite's real shapes (scripts/h200-check-mutations, docs/tolerances.md).

Each mutation is a text rewrite of a pattern that `vxsynth gen` emits; where a candidate does not
contain the pattern (another kind of kernel, e.g. a Hopper one), the mutation is reported as not
applicable rather than silently skipped. The first line is kept as it is: a candidate that starts
with `// vxsynth-target: sm_90a` must stay a Hopper build.

  python3 -m vxsynth.mutants CANDIDATE.cu OUT_DIR STEM   -> writes OUT_DIR/STEM__<mutation>.cu
                                                            and prints one line per mutation
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable


@dataclass(frozen=True)
class Mutation:
    name: str
    # What the check must report for the mutant: "bias" (a systematic error: the slope check),
    # "unwritten" (elements still poison), "beyond" (elements beyond atol + rtol |y|), or "any"
    # (the check fails, whatever the reason).
    expect: str
    why: str
    apply: Callable[[str], str | None]  # the mutated text, or None when the pattern is absent


def _sub_exactly(pattern: str, repl: str | Callable, text: str, min_count: int = 1) -> str | None:
    new, n = re.subn(pattern, repl, text)
    return new if n >= min_count else None


# The output store of every generated GEMM-view kernel (linear, matmul, conv):
#   t.out[out_offset(p, out_base, m, n)] = <value>;
_STORE = r"(t\.out\[out_offset\(p, out_base, m, n\)\] = )([^;]+);"


def _output_truncated(text: str) -> str | None:
    # bf16 output rounded toward zero instead of to nearest (a `bits >> 16` conversion). The
    # Hopper family converts through one helper, from_float.
    hopper = _sub_exactly(r"(elem_t from_float\(float v\) \{ return )__float2bfloat16(_rn)?\(v\);",
                          r"\1__float2bfloat16_rz(v);", text)
    if hopper is not None:
        return hopper
    return _sub_exactly(_STORE.replace("([^;]+)", r"__float2bfloat16_rn\((\w+)\)"),
                        r"\1__float2bfloat16_rz(\2);", text) or \
        _sub_exactly(_STORE.replace("([^;]+)", r"__float2half_rn\((\w+)\)"), r"\1__float2half_rz(\2);", text)


def _tf32_truncated(text: str) -> str | None:
    # Raw fp32 bits into the tf32 MMA (__float_to_tf32 forgotten): the hardware ignores the low 13
    # bits, i.e. truncates the operands instead of rounding them to nearest.
    return _sub_exactly(r'asm\("cvt\.rna\.tf32\.f32 %0, %1;" : "=r"\((\w+)\) : "f"\((\w+)\)\);',
                        r"\1 = __float_as_uint(\2);", text)


def _dropped_k_tile(text: str) -> str | None:
    # The mainloop stops one k-tile early (each split-K slice loses its last tile). Hopper: the
    # producer's and the consumers' tile count, one less.
    hopper = _sub_exactly(r"const int ktiles = static_cast<int>\(\(p\.K \+ kBK - 1\) / kBK\);",
                          "const int ktiles = static_cast<int>((p.K + kBK - 1) / kBK) - 1;", text)
    if hopper is not None:
        return hopper
    # The cp.async ring counts its slice's k-tiles first.
    ring = _sub_exactly(r"const idx_t k_tiles = k_begin < k_end \? \(k_end - k_begin \+ kBK - 1\) / kBK : 0;",
                        "const idx_t k_tiles = k_begin < k_end ? (k_end - k_begin + kBK - 1) / kBK - 1 : 0;", text)
    if ring is not None:
        return ring
    return _sub_exactly(r"for \(idx_t k0 = (\w+); k0 < k_end; k0 \+= kBK\)",
                        r"for (idx_t k0 = \1; k0 < k_end - kBK; k0 += kBK)", text)


def _last_row_unwritten(text: str) -> str | None:
    # Off by one in the row bound of the output store: the GEMM view's last row stays poison.
    # Hopper: only the direct epilogue has a row bound (a bulk store clips in the TMA unit).
    if "_ep-direct_" in text.split("\n", 2)[1] if text.count("\n") > 1 else False:
        return _sub_exactly(r"if \(row >= p\.M \|\| col >= p\.N\) continue;",
                            "if (row + 1 >= p.M || col >= p.N) continue;", text)
    return _sub_exactly(_STORE, r"if (m + 1 < p.M) \1\2;", text)


def _transform_last_column(text: str) -> str | None:
    # A layout transform whose guard drops the last column of each plane.
    return _sub_exactly(r"const idx_t rows = p\.rows, cols = p\.cols;",
                        "const idx_t rows = p.rows, cols = p.cols - 1;", text)


def _transform_one_ulp(text: str) -> str | None:
    # A layout transform through the FPU that perturbs the value by one ulp (1.0f -> 1 + 2^-23).
    return _sub_exactly(r"return __float_as_uint\(__uint_as_float\(v\) \* alpha\);",
                        "return __float_as_uint(__uint_as_float(v) * (alpha * 1.00000012f));", text)


MUTATIONS = [
    Mutation("output_truncated", "bias",
             "bf16/fp16 output truncated instead of rounded: within one ulp per element, caught by the bias check",
             _output_truncated),
    Mutation("tf32_operands_truncated", "bias",
             "tf32 operands truncated instead of rounded: within atol at large K, caught by the bias check",
             _tf32_truncated),
    Mutation("dropped_k_tile", "beyond", "the last k-tile of the reduction skipped", _dropped_k_tile),
    Mutation("last_row_unwritten", "unwritten", "off-by-one row bound: the last output row left unwritten",
             _last_row_unwritten),
    Mutation("transform_last_column", "any", "layout transform: the last column of each plane not moved",
             _transform_last_column),
    Mutation("transform_one_ulp", "any", "layout transform: each value one ulp off (exact check)",
             _transform_one_ulp),
]


def mutate(source: str) -> dict[str, str | None]:
    """Every mutation's text (None where not applicable); the first line is never changed."""
    first, sep, rest = source.partition("\n")
    out = {}
    for m in MUTATIONS:
        new_rest = m.apply(rest)
        out[m.name] = None if new_rest is None or new_rest == rest else first + sep + new_rest
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    src, out_dir, stem = Path(argv[0]), Path(argv[1]), argv[2]
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, text in mutate(src.read_text()).items():
        m = next(x for x in MUTATIONS if x.name == name)
        if text is None:
            print(f"{stem}\t{name}\tnot-applicable\t-")
            continue
        path = out_dir / f"{stem}__{name}.cu"
        path.write_text(text)
        print(f"{stem}\t{name}\t{m.expect}\t{path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
