import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

FIXTURES = REPO / "tests" / "data" / "h200"
SUITE = REPO / "suite" / "vx-robotics"


def find_vxsynth(environ=os.environ):
    """The C++ binary: $VXSYNTH when set (scripts/python-tests sets it to BUILD/vxsynth, so
    `make test BUILD=x` tests x's binary), else build/vxsynth. Returns (path or None, why not)."""
    named = environ.get("VXSYNTH")
    if named:
        if Path(named).is_file() and os.access(named, os.X_OK):
            return named, ""
        return None, f"VXSYNTH={named} is not an executable file (run `make build BUILD=...`)"
    default = REPO / "build" / "vxsynth"
    if default.is_file() and os.access(default, os.X_OK):
        return str(default), ""
    return None, f"vxsynth binary not built at {default} (run `make build`, or set VXSYNTH)"


@pytest.fixture(scope="session")
def vxsynth_bin():
    """The C++ binary (`make test` builds it before the Python tests run). A binary that was
    named but is missing fails the tests that need it; one that was never built skips them."""
    path, why = find_vxsynth()
    if path:
        return path
    if os.environ.get("VXSYNTH"):
        pytest.fail(why)
    pytest.skip(why)


@pytest.fixture(scope="session")
def meta_calls():
    """One full-size inference per workload on the meta device, recorded by OpTracker."""
    from vxsynth import models, optrace
    return {name: optrace.trace_ops(models.get(name)) for name in models.WORKLOADS}
