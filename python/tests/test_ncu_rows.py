"""Finding the profiled launches among ncu's rows (names differ between ncu and torch)."""
import pytest
from conftest import FIXTURES

from vxsynth import ncu_rows


def test_read_real_rows():
    rows = ncu_rows.read_rows(str(FIXTURES / "ncu-probe-fp32-matmul-linear-conv.csv"))
    assert [r["ID"] for r in rows] == ["0", "1", "2", "3"]
    assert ncu_rows.parse_dim3(rows[1]["Grid Size"]) == [13, 2, 8]
    assert ncu_rows.parse_dim3(rows[1]["Block Size"]) == [128, 1, 1]


@pytest.mark.parametrize("torch_name,ncu_name", [
    # ncu-profiling.md section 3: ncu simplifies demangled names.
    ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >"
     "(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",
     "void at::vectorized_elementwise_kernel<4, at::CUDAFunctor_add<float>, std::array<char *, 3>>(int, T2, T3)"),
    ("void cudnn::engines_precompiled::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)2>"
     "(cudnn::engines_precompiled::nchw2nhwc_params_t<float>, float const*, float*)",
     "cudnn::nchwToNhwcKernel<float, float, float, 0, 1, 2>"),
    ("nvjet_sm90_tst_128x104_64x7_1x2_h_bz_NNT", "nvjet_sm90_tst_128x104_64x7_1x2_h_bz_NNT"),
])
def test_base_names_agree(torch_name, ncu_name):
    assert ncu_rows.base_name(torch_name) == ncu_rows.base_name(ncu_name)


def test_base_names_differ():
    assert ncu_rows.base_name("nvjet_sm90_tst_8x64_64x16_2x1_v_bz_TNN") != \
        ncu_rows.base_name("nvjet_sm90_tst_128x104_64x7_1x2_h_bz_NNT")


def _row(i, name, grid, block=(384, 1, 1)):
    return {"ID": str(i), "Kernel Name": name, "Grid Size": "({}, {}, {})".format(*grid),
            "Block Size": "({}, {}, {})".format(*block)}


WINDOWS = [
    {"op_call": 10, "kernels": [{"name": "void cudnn::engines_precompiled::nchwToNhwcKernel<float>(x)", "grid": [1, 64, 1], "block": [256, 1, 1]},
                                {"name": "void cudnn::engines_precompiled::nchwToNhwcKernel<float>(x)", "grid": [1, 64, 2048], "block": [256, 1, 1]},
                                {"name": "sm90_xmma_fprop_a", "grid": [32, 2, 1], "block": [128, 1, 1]}]},
    {"op_call": 42, "kernels": [{"name": "nvjet_b", "grid": [2, 66, 1], "block": [384, 1, 1]}]},
]
TARGETS = [{"rank": 1, "op_call": 10, "position": 1}, {"rank": 2, "op_call": 10, "position": 2},
           {"rank": 3, "op_call": 42, "position": 0}]


def test_match_in_sequence():
    rows = [_row(0, "cudnn::nchwToNhwcKernel<float>", [1, 64, 1], (256, 1, 1)),
            _row(1, "cudnn::nchwToNhwcKernel<float>", [1, 64, 2048], (256, 1, 1)),
            _row(2, "sm90_xmma_fprop_a", [32, 2, 1], (128, 1, 1)), _row(3, "nvjet_b", [2, 66, 1])]
    m = ncu_rows.match_targets(rows, WINDOWS, TARGETS)
    assert {r: v["row"]["ID"] for r, v in m.items()} == {1: "1", 2: "2", 3: "3"}
    assert {v["match"] for v in m.values()} == {"sequence"}
    assert {r: [x["ID"] for x in v["operator_rows"]] for r, v in m.items()} == {1: ["0", "1", "2"], 2: ["0", "1", "2"], 3: ["3"]}


def test_match_by_name_and_geometry_when_rows_differ():
    rows = [_row(0, "cudnn::nchwToNhwcKernel<float>", [1, 64, 1], (256, 1, 1)),
            _row(1, "extra_kernel", [1, 1, 1]),
            _row(2, "cudnn::nchwToNhwcKernel<float>", [1, 64, 2048], (256, 1, 1)),
            _row(3, "sm90_xmma_fprop_a", [32, 2, 1], (128, 1, 1)), _row(4, "nvjet_b", [2, 66, 1])]
    m = ncu_rows.match_targets(rows, WINDOWS, TARGETS)
    assert {r: v["row"]["ID"] for r, v in m.items()} == {1: "2", 2: "3", 3: "4"}
    assert {v["match"] for v in m.values()} == {"name+geometry"}
    # Each target's operator is every kernel of its call, the extra kernel in none of them.
    assert {r: [x["ID"] for x in v["operator_rows"]] for r, v in m.items()} == {1: ["0", "2", "3"], 2: ["0", "2", "3"], 3: ["4"]}


def test_missing_target_is_an_error():
    rows = [_row(0, "cudnn::nchwToNhwcKernel<float>", [1, 64, 1], (256, 1, 1)), _row(3, "nvjet_b", [2, 66, 1])]
    with pytest.raises(ncu_rows.NcuRowError, match="no row matches target rank 1"):
        ncu_rows.match_targets(rows, WINDOWS, TARGETS)


def test_csv_without_table(tmp_path):
    p = tmp_path / "ncu.csv"
    p.write_text("==PROF== Connected to process 1\n==ERROR== the application returned an error\n")
    with pytest.raises(ncu_rows.NcuRowError, match="ncu.csv: no header row"):
        ncu_rows.read_rows(str(p))
