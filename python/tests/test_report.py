"""The suite report (python/vxsynth/report.py, `vxsynth report`): generated from the committed
locked suite, every figure written and referenced, nothing fetched over the network, the numbers
it draws agree with the committed records; and, where Debian's chromium is installed, the page
loads in headless Chromium with every figure shown and no console error (a screenshot is kept
under the build folder)."""
import html
import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import REPO, SUITE

pytest.importorskip("matplotlib", reason="python3-matplotlib missing (scripts/install-deps installs it)")
from vxsynth import report  # noqa: E402

SUITE_DIR = SUITE / "h200"
# Locked benchmarks whose Vortex-side signature is not made yet (none today; a new lock's is made
# with `vxsynth suite run SUITE --signature --bench B`).
PENDING_VORTEX: set = set()


class Refs(HTMLParser):
    """Every src/href of the page, the img sources apart, and the rows of the sortable table."""

    def __init__(self):
        super().__init__()
        self.imgs, self.links, self.tags, self.rows, self._in_sortable = [], [], [], [], False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if tag == "img":
            self.imgs.append(a.get("src", ""))
        for k in ("src", "href"):
            if k in a and tag != "img":
                self.links.append(a[k])
        if tag == "table" and "sortable" in (a.get("class") or ""):
            self._in_sortable = True
        if tag == "tr" and self._in_sortable:
            self.rows.append(0)
        if tag in ("td", "th") and self._in_sortable:
            self.rows[-1] += 1

    def handle_endtag(self, tag):
        if tag == "table":
            self._in_sortable = False


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    r = report.write_report(SUITE_DIR, out)
    return out, r


def test_every_figure_is_written_and_referenced(made):
    out, r = made
    page = (out / "index.html").read_text()
    refs = Refs()
    refs.feed(page)
    svgs = [f for f in r["figures"] if f.endswith(".svg")]
    pngs = [f for f in r["figures"] if f.endswith(".png")]
    locked = [b for b in json.loads((SUITE_DIR / "suite.json").read_text())["benchmarks"]
              if (SUITE_DIR / b["name"] / "signature.json").is_file()]
    # coverage + matrix + one heatmap per operator family + a signature and a chain figure per
    # locked benchmark, and a Vortex-side figure per vortex-signature.json (every locked benchmark
    # has one but PENDING_VORTEX)
    assert len(locked) >= 2
    with_vortex = [b for b in locked if (SUITE_DIR / b["name"] / "vortex-signature.json").is_file()]
    assert {b["name"] for b in locked} - {b["name"] for b in with_vortex} <= PENDING_VORTEX
    assert len(svgs) == 2 + 2 + 2 * len(locked) + len(with_vortex), svgs
    for b in with_vortex:
        assert f"figures/vortex-{b['name']}.svg" in svgs, f"{b['name']}: no Vortex-side figure"
    assert {Path(p).stem for p in pngs} == {Path(p).stem for p in svgs}
    for f in r["figures"]:
        p = out / f
        assert p.is_file() and p.stat().st_size > 1000, f
    for f in svgs:
        ET.parse(out / f)  # well-formed SVG
        assert f in refs.imgs, f"{f} is not shown by index.html"
    for f in pngs:
        assert f in refs.links, f"{f} is not linked from index.html"
    # every local reference resolves (figures, the benchmarks' files, anchors are same-page)
    for link in refs.imgs + refs.links:
        if link.startswith("#"):
            assert f'id=\'{link[1:]}\'' in page or f'id="{link[1:]}"' in page, link
            continue
        assert (out / link).exists(), f"index.html links to {link}, which does not exist"
    # the sortable table: one header and one row per benchmark, all of the same width
    assert len(refs.rows) == 1 + len(json.loads((SUITE_DIR / "suite.json").read_text())["benchmarks"])
    assert len(set(refs.rows)) == 1, refs.rows


def test_the_table_is_the_suite_status_tables(made, vxsynth_bin):
    """tried/retained, seed D, final D, device seconds and the Vortex side's D are `vxsynth suite
    status`'s on every row: one source for both tables."""
    out, _ = made
    page = (out / "index.html").read_text()
    status = json.loads(subprocess.run([vxsynth_bin, "suite", "status", str(SUITE_DIR), "--json"], capture_output=True,
                                       text=True, check=True).stdout)
    rows = {}
    for tr in re.findall(r"<tr>(.*?)</tr>", page, re.S):
        cells = re.findall(r"<td data-v=\"([^\"]*)\">(.*?)</td>", tr, re.S)
        if cells:
            rows[cells[0][0]] = [html.unescape(c[1]) for c in cells]
    locked = [r for r in status["rows"] if r["locked"]]
    assert len(locked) >= 2
    # each row's file links folded into one line (they made every row nine lines tall)
    table = page[page.index("<h2 id='table'>"):page.index("<h2 id='matrix'>")]
    assert table.count("<details><summary>") == len(status["rows"])
    for r in locked:
        cells = rows[r["benchmark"]]
        assert cells[7] == f"{r['revisions']}/{r['retained']}", (r["benchmark"], cells[7])
        assert cells[8] == report._fmt(r["seed_d"]), (r["benchmark"], cells[8])
        assert cells[9] == report._fmt(r["final_d"]), (r["benchmark"], cells[9])
        # what final D is of, and the operator's time and bytes over the vendor call's (- until measured)
        assert cells[10] == ("op" if r["scope"] == "operator" else "kern"), (r["benchmark"], cells[10])
        assert cells[11] == report._fmt(r["time_ratio"], ".2f"), (r["benchmark"], cells[11])
        assert cells[12] == report._fmt(r["dram_ratio"], ".2f"), (r["benchmark"], cells[12])
        assert cells[16] == f"{r['device_seconds']:.0f}", (r["benchmark"], cells[16])
        if r.get("vortex"):
            assert cells[14].rstrip("!") == report._fmt(r["vortex"]["d_cuda"]), (r["benchmark"], cells[14])


def test_nothing_is_fetched_over_the_network(made):
    out, r = made
    page = (out / "index.html").read_text()
    refs = Refs()
    refs.feed(page)
    for link in refs.imgs + refs.links:
        assert not re.match(r"^([a-z]+:)?//", link), f"index.html references {link} over the network"
    assert "link" not in refs.tags and "iframe" not in refs.tags
    assert not re.search(r"<script[^>]+src=", page) and "@import" not in page and "url(" not in page
    for f in r["figures"]:
        if f.endswith(".svg"):
            text = (out / f).read_text()
            # namespaces (xmlns=...) are names, not fetches; an href to the network would be one
            assert not re.search(r'href="(https?:)?//', text), f


def test_drawn_numbers_agree_with_the_records(made):
    suite = report.load_suite(SUITE_DIR)
    locked = [e for e in suite["benches"] if e["locked"]]
    for e in locked:
        # the report's own D (distance matrix, spread) reproduces the loop's D of the locked revision
        d = report.distance(e["signature"]["signature"], e["reference"]["signature"]["metrics"])
        assert d == pytest.approx(e["signature"]["d"], abs=1e-9), e["plan"]["name"]
        for m in report.METRICS:
            dm = report.metric_distance(m, e["signature"]["signature"][m], e["reference"]["signature"]["metrics"][m])
            assert dm == pytest.approx(e["signature"]["distances"][m], abs=1e-9), (e["plan"]["name"], m)
    # the Vortex side: the report's distance gives the recorded D to the CUDA proxy and to the reference
    for e in locked:
        if e["plan"]["name"] in PENDING_VORTEX and "vortex" not in e:
            continue
        assert "vortex" in e, f"{e['plan']['name']}: no vortex-signature.json"
        side = e["vortex"]["side"]
        dc = report.distance(e["vortex"]["metrics"], e["signature"]["signature"])
        assert dc == pytest.approx(side["distance_to_cuda"]["d"], abs=1e-9), e["plan"]["name"]
        dr = report.distance(e["vortex"]["metrics"], e["reference"]["signature"]["metrics"])
        assert dr == pytest.approx(side["distance_to_reference"]["d"], abs=1e-9), e["plan"]["name"]
        # no L2 in Vortex 2.x's default configuration: left out, never scored as 0
        assert e["vortex"]["metrics"]["l2_hit_rate"] is None
        assert side["distance_to_cuda"]["distances"]["l2_hit_rate"] is None
    # the heatmaps count every single-axis move with a parent, once per metric
    singles = sum(1 for e in locked for r in e["revisions"] if r["kind"] == "single" and r["parent"] is not None)
    res = report.responses(suite)
    counted = sum(len(res[f][a]["l1_hit_rate"]) for f in res for a in res[f])
    assert counted == singles > 100
    # one chain's response by hand: pi0-1's revision 1 moved read_once; its l2 distance change
    e = next(e for e in locked if e["plan"]["name"] == "pi0-1-batched-matmul")
    r1, r0 = e["revisions"][1], e["revisions"][0]
    assert r1["moves"][0]["axis"] == "read_once"
    assert (r1["distances"]["l2_hit_rate"] - r0["distances"]["l2_hit_rate"]) in \
        res["matmul (linear, batched_matmul)"]["read_once"]["l2_hit_rate"]


def test_bad_vortex_side_names_file_and_field(tmp_path):
    bad = tmp_path / "vortex-signature.json"
    bad.write_text(json.dumps({"schema": "vxsynth.signature/1", "kernels": [{"metrics": {}}]}))
    with pytest.raises(report.ReportError, match=r"vortex-signature\.json: field 'vortex_side\.schema'"):
        report.load_vortex_side(bad)
    doc = json.loads((SUITE_DIR / "act-1-linear" / "vortex-signature.json").read_text())
    del doc["vortex_side"]["cycles"]
    bad.write_text(json.dumps(doc))
    with pytest.raises(report.ReportError, match=r"field 'vortex_side\.cycles' missing"):
        report.load_vortex_side(bad)


def test_bad_suite_names_file_and_field(tmp_path):
    bad = tmp_path / "suite"
    bad.mkdir()
    (bad / "suite.json").write_text(json.dumps({"schema": "vxsynth.suite-plan/1", "benchmarks": [{"name": "x"}]}))
    with pytest.raises(report.ReportError, match=r"suite\.json: benchmark x: field 'workload' missing"):
        report.write_report(bad, tmp_path / "out")
    (bad / "suite.json").write_text("{")
    with pytest.raises(report.ReportError, match=r"suite\.json: not JSON"):
        report.write_report(bad, tmp_path / "out")
    with pytest.raises(report.ReportError, match=r"nowhere/suite\.json: no such file"):
        report.write_report(tmp_path / "nowhere", tmp_path / "out")


def small_suite(tmp_path: Path) -> Path:
    """A copy of the committed suite cut to the act workload (a quick CLI run)."""
    dst = tmp_path / "h200"
    dst.mkdir()
    plan = json.loads((SUITE_DIR / "suite.json").read_text())
    plan["benchmarks"] = [b for b in plan["benchmarks"] if b["workload"] == "act"][:2]
    (dst / "suite.json").write_text(json.dumps(plan))
    shutil.copy(SUITE_DIR / "act.coverage.json", dst)
    for b in plan["benchmarks"]:
        shutil.copytree(SUITE_DIR / b["name"], dst / b["name"])
    return dst


def test_cli_writes_the_report_and_passes_errors_through(vxsynth_bin, tmp_path):
    suite = small_suite(tmp_path)
    p = subprocess.run([vxsynth_bin, "report", str(suite), "-o", str(tmp_path / "out"), "--no-png"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "index.html" in p.stdout
    assert (tmp_path / "out" / "figures" / "coverage.svg").stat().st_size > 1000
    assert not list((tmp_path / "out" / "figures").glob("*.png"))
    p = subprocess.run([vxsynth_bin, "report", str(tmp_path / "nowhere"), "-o", str(tmp_path / "o2")],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "nowhere: no such suite folder" in p.stderr, p.stderr
    env = dict(os.environ, VXSYNTH_PYTHON=str(tmp_path / "no-python"))
    p = subprocess.run([vxsynth_bin, "report", str(suite), "-o", str(tmp_path / "o3")],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 2 and "no-python" in p.stderr and "python3-matplotlib" in p.stderr, p.stderr


# ---- headless Chromium -------------------------------------------------------------------------

PROBE = """<script>
window.__probe = {errors: []};
window.addEventListener('error', ev => window.__probe.errors.push(
  'error: ' + (ev.message || (ev.target && (ev.target.src || ev.target.href)) || 'unknown')), true);
const __ce = console.error;
console.error = (...a) => { window.__probe.errors.push('console.error: ' + a.join(' ')); __ce(...a); };
window.addEventListener('load', () => {
  const imgs = [...document.images];
  const bad = imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src'));
  const loaded = imgs.filter(i => i.complete && i.naturalWidth > 0).map(i => i.getAttribute('src'));
  document.body.setAttribute('data-probe', JSON.stringify(
    {images: imgs.length, bad: bad, loaded: loaded, errors: window.__probe.errors}));
});
</script>"""


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def build_dir() -> Path:
    named = os.environ.get("VXSYNTH")
    return Path(named).parent if named else REPO / "build"


@pytest.mark.skipif(chromium() is None, reason="Debian's chromium is not installed (scripts/install-deps "
                                                "installs it): the report was not opened in a browser")
def test_report_loads_in_headless_chromium(made):
    out, r = made
    browser = chromium()
    page = (out / "index.html").read_text()
    probe = out / "probe.html"
    probe.write_text(page.replace("<head>", "<head>" + PROBE, 1))
    flags = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-extensions", f"--user-data-dir={out / 'chromium-profile'}"]
    p = subprocess.run(flags + ["--virtual-time-budget=10000", "--dump-dom", probe.as_uri()],
                       capture_output=True, text=True, timeout=180)
    m = re.search(r"data-probe=\"([^\"]*)\"", p.stdout)
    assert m, f"the probe did not run (chromium exit {p.returncode}): {p.stderr[-2000:]}"
    result = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    n_svg = sum(1 for f in r["figures"] if f.endswith(".svg"))
    assert result["images"] == n_svg
    assert result["bad"] == [], f"figures that did not load: {result['bad']}"
    assert result["errors"] == [], result["errors"]
    # every locked benchmark's page shows its Vortex side (a missing file or figure fails here)
    for b in json.loads((SUITE_DIR / "suite.json").read_text())["benchmarks"]:
        if (SUITE_DIR / b["name"] / "signature.json").is_file() and b["name"] not in PENDING_VORTEX:
            assert f"figures/vortex-{b['name']}.svg" in result["loaded"], f"{b['name']}: Vortex-side figure not shown"
    console = [line for line in p.stderr.splitlines() if "CONSOLE" in line and "probe.html" in line]
    assert console == [], console
    shots = build_dir() / "report-screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    # One screenshot per part: a copy of the page that starts at the part (headless screenshots
    # of a scrolled page come out blank), kept for a person to look at.
    for anchor in ("coverage", "heatmaps", "pi0-1-batched-matmul", "vortex-pi0-1-batched-matmul"):
        cut = out / f"shot-{anchor}.html"
        cut.write_text(page.replace("<head>", "<head><script>document.addEventListener('DOMContentLoaded', () => {"
                                    f"const el = document.getElementById('{anchor}');"
                                    # everything before the part, at every level up to the body
                                    "for (let n = el; n && n !== document.body; n = n.parentElement) "
                                    "while (n.previousElementSibling) n.previousElementSibling.remove(); });"
                                    "</script>", 1))
        shot = shots / f"{anchor}.png"
        subprocess.run(flags + ["--window-size=1280,1600", "--hide-scrollbars", "--virtual-time-budget=10000",
                                f"--screenshot={shot}", cut.as_uri()],
                       capture_output=True, text=True, timeout=180, check=True)
        assert shot.stat().st_size > 50000, f"{shot}: nearly empty (the part did not render)"


def test_benchmark_pages_give_the_spread_over_repeats(made):
    """A locked benchmark profiled again after the lock (signature.json "repeats") shows D's
    range over those profiles and whether the proxy is nearest its own reference."""
    out, _ = made
    page = (out / "index.html").read_text()
    sig = json.loads((SUITE_DIR / "pi0-1-batched-matmul" / "signature.json").read_text())
    rep = sig["repeats"]
    text = (f"D over {len(rep['d'])} repeat profiles: {min(rep['d']):.4f} to {max(rep['d']):.4f}")
    assert text in page
