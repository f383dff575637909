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


@pytest.fixture(scope="session")
def vxsynth_bin():
    """The C++ binary (`make test` builds it before the Python tests run)."""
    for cand in (os.environ.get("VXSYNTH"), REPO / "build" / "vxsynth"):
        if cand and Path(cand).is_file() and os.access(cand, os.X_OK):
            return str(cand)
    pytest.skip("vxsynth binary not built (run `make build`, or set VXSYNTH)")


@pytest.fixture(scope="session")
def meta_calls():
    """One full-size inference per workload on the meta device, recorded by OpTracker."""
    from vxsynth import models, optrace
    return {name: optrace.trace_ops(models.get(name)) for name in models.WORKLOADS}
