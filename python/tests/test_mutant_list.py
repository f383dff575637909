"""The mutation harness's list (tests/mutation/mutants.toml) stays applicable as the code moves:
every mutant's `find` occurs exactly once in its file and names declared test binaries, and the
harness refuses a malformed list with the file, the entry and the field."""
import importlib.machinery
import importlib.util
import subprocess
import sys

import pytest

from conftest import REPO

SCRIPT = REPO / "scripts" / "test-mutants"


def harness():
    loader = importlib.machinery.SourceFileLoader("test_mutants_harness", str(SCRIPT))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def test_every_mutant_applies_exactly_once():
    r = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "stale" not in r.stdout


def test_the_list_covers_every_area_the_issue_names():
    mutants = harness().load_mutants()
    areas = {m["area"] for m in mutants}
    assert {"lock", "retention", "profile", "signature", "tolerance", "containment", "codegen", "timing"} <= areas
    assert len(mutants) >= 30


def test_a_mutant_that_no_longer_applies_is_stale(tmp_path):
    h = harness()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.cpp").write_text("int f() { return 1 + 1; }\n")
    m = {"file": "src/a.cpp", "find": "1 + 1", "replace": "1 - 1"}
    assert h.applies(m, tmp_path) == ""
    (tmp_path / "src" / "a.cpp").write_text("int f() { return 2; }\n")
    assert "occurs 0 times" in h.applies(m, tmp_path)
    (tmp_path / "src" / "a.cpp").write_text("int f() { return 1 + 1 + 1 + 1; }\n")
    assert "occurs 2 times" in h.applies(m, tmp_path)
    assert "no such file" in h.applies({**m, "file": "src/b.cpp"}, tmp_path)


@pytest.mark.parametrize("text, words", [
    ("", ["no [[mutant]] entries"]),
    ("[[mutant]]\nname = 'x'\n", ["mutant #1", "'area' missing"]),
    ("[[mutant]]\nname='x'\narea='a'\nfile='f'\nfind='a'\nreplace='a'\ntests=['b:c']\nbug='d'\n", ["'replace' equals 'find'"]),
    ("[[mutant]]\nname='x'\narea='a'\nfile='f'\nfind='a'\nreplace='b'\ntests=['bc']\nbug='d'\n", ["not 'binary:gtest-filter'"]),
    ("[[mutant\n", ["mutants.toml"]),
])
def test_a_malformed_list_is_refused_naming_the_field(tmp_path, text, words):
    h = harness()
    p = tmp_path / "mutants.toml"
    p.write_text(text)
    with pytest.raises(h.ListError) as e:
        h.load_mutants(p)
    for w in words:
        assert w in str(e.value)
