"""The capture's platform table and the C++ one (src/signature/platform.cpp) name the same GPUs
the same way: a reference captured on a GPU lands in the suite folder the C++ side looks for."""
import pathlib
import re

from vxsynth import reference

ROOT = pathlib.Path(__file__).resolve().parents[2]


def cpp_platforms() -> dict:
    text = (ROOT / "src" / "signature" / "platform.cpp").read_text()
    table = text[text.index("kKnownPlatforms[] = {"):]
    table = table[:table.index("};")]
    out = {}
    for pid, fragments in re.findall(r'\{"([^"]+)", \{([^}]*)\}\}', table):
        out[pid] = tuple(re.findall(r'"([^"]+)"', fragments))
    return out


def test_both_tables_hold_the_same_platforms():
    cpp = cpp_platforms()
    assert cpp, "no table found in platform.cpp"
    assert {k: tuple(v["match"]) for k, v in reference.PLATFORMS.items()} == cpp


def test_ids_of_the_two_gpus_the_device_serves():
    assert reference.platform_id_for("NVIDIA H200") == "h200"
    assert reference.platform_id_for("NVIDIA H100 80GB HBM3") == "h100"
    assert reference.platform_id_for("NVIDIA A100-SXM4-80GB") == "a100-sxm4-80gb"
