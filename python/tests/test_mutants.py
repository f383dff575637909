"""The mutation generator behind scripts/h200-check-mutations: every mutation applies where the
locked suite's proxies have its pattern, changes exactly what it names, and keeps the first line
(a Hopper candidate's `// vxsynth-target: sm_90a`)."""
from pathlib import Path

from conftest import SUITE
from vxsynth.mutants import MUTATIONS, mutate

H200 = SUITE / "h200"


def locked():
    return sorted(p for p in H200.iterdir() if (p / "validation.json").is_file())


def test_every_locked_proxy_gets_the_mutations_its_kind_needs():
    benches = locked()
    assert len(benches) >= 13
    for b in benches:
        src = (b / "cuda" / "candidate.cu").read_text()
        m = mutate(src)
        applied = {k for k, v in m.items() if v is not None}
        if "layout_transform" in src.splitlines()[1]:
            assert applied == {"transform_last_column", "transform_one_ulp"}, b.name
            continue
        hopper = "vxsynth-target: sm_90a" in src.splitlines()[0]
        design = src.splitlines()[2 if hopper else 1]
        # Every GEMM-view proxy: a dropped k-tile; an unwritten last row where the store has a
        # row bound (not a Hopper bulk-store epilogue, which the TMA unit clips).
        assert "dropped_k_tile" in applied, b.name
        if not hopper or "_ep-direct_" in design:
            assert "last_row_unwritten" in applied, b.name
        if "_bf16_" in design:
            assert "output_truncated" in applied, b.name
        if "_tf32_tensor_core" in design or "_tf32_hopper" in design:
            assert "tf32_operands_truncated" in applied, b.name


def test_mutations_change_only_their_pattern_and_keep_the_first_line():
    src = (H200 / "pi0-3-batched-matmul" / "cuda" / "candidate.cu").read_text()  # a bf16 GEMM-family proxy
    hopper = "// vxsynth-target: sm_90a\n" + src
    for text in (src, hopper):
        m = mutate(text)
        assert m["output_truncated"].count("__float2bfloat16_rz(") == 1
        assert "__float2bfloat16_rz(" not in text
        assert "k0 < k_end - kBK" in m["dropped_k_tile"]
        assert "if (m + 1 < p.M) t.out[" in m["last_row_unwritten"]
        for name, new in m.items():
            if new is None:
                continue
            assert new.split("\n", 1)[0] == text.split("\n", 1)[0], name
            # one region changed: the texts differ in a small number of lines
            diff = [a for a, b in zip(text.splitlines(), new.splitlines()) if a != b]
            assert 1 <= len(diff) <= 2, (name, diff)
    tf32 = (H200 / "act-5-conv2d" / "cuda" / "candidate.cu").read_text()
    t = mutate(tf32)["tf32_operands_truncated"]
    assert "cvt.rna.tf32" not in t and "= __float_as_uint(v);" in t
    # act-5's lock is a cp.async ring (prefetch cp_async): its slice's k-tile count, one less.
    assert "(k_end - k_begin + kBK - 1) / kBK - 1 : 0;" in mutate(tf32)["dropped_k_tile"]


def test_a_candidate_without_the_patterns_gets_none():
    m = mutate("// vxsynth-target: sm_90a\n__global__ void k() {}\n")
    assert all(v is None for v in m.values())
    assert len(MUTATIONS) == len(m)
