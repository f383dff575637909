"""The test set-up finds the binary of the build it was given (`make test BUILD=x`)."""
import os
import stat

from conftest import find_vxsynth


def test_named_binary_is_used(tmp_path):
    exe = tmp_path / "x" / "vxsynth"
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    path, why = find_vxsynth({"VXSYNTH": str(exe)})
    assert path == str(exe) and why == ""


def test_named_but_missing_binary_says_so(tmp_path):
    path, why = find_vxsynth({"VXSYNTH": str(tmp_path / "nope" / "vxsynth")})
    assert path is None
    assert "VXSYNTH=" in why and "nope" in why


def test_make_test_passes_its_build_folder():
    # scripts/python-tests sets VXSYNTH to BUILD/vxsynth; under `make test` it must exist.
    named = os.environ.get("VXSYNTH")
    if named is None:
        return  # run by hand without make: nothing was passed through
    path, why = find_vxsynth()
    assert path == named, why
