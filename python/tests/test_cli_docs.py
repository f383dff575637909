"""Every option of every `vxsynth` command is documented: in docs/cli.md or in the document of
its part that cli.md points to (an option nobody can find is one nobody uses)."""
import re
import subprocess

from conftest import REPO

# The document of each command's part, beside docs/cli.md.
PART_DOCS = {"signature": ["signature.md"], "distance": ["signature.md"], "check": ["ops.md"], "ref": ["ops.md"],
             "gen": ["design-space.md"], "gpu": ["gpu.md"], "refine": ["refine.md"],
             "sim": ["vxsim.md", "vxsim-timing.md", "vortex-kernels.md"], "suite": ["suite.md", "cluster.md"],
             "report": ["report.md"]}


def help_of(vxsynth_bin, args):
    return subprocess.run([vxsynth_bin, *args, "--help"], capture_output=True, text=True, check=True).stdout


def subcommands(text):
    m = re.search(r"^Subcommands:\n((?:  \S.*\n?)+)", text, re.M)
    return [line.split()[0] for line in m.group(1).splitlines()] if m else []


def options(text):
    m = re.search(r"^Options:\n((?:  .*\n?)+)", text, re.M)
    if not m:
        return []
    return sorted({o for o in re.findall(r"(?:^|,|\s)(--[a-z][a-z0-9-]*)", m.group(1), re.M) if o != "--help"})


def test_every_cli_option_is_documented(vxsynth_bin):
    docs = REPO / "docs"
    cli = (docs / "cli.md").read_text()
    commands = subcommands(help_of(vxsynth_bin, []))
    assert {"refine", "suite", "sim", "gen", "distance"} <= set(commands)
    assert set(commands) <= set(PART_DOCS), f"a command without its part's document: {set(commands) - set(PART_DOCS)}"
    missing, seen = [], 0
    for cmd in commands:
        text = cli + "".join((docs / d).read_text() for d in PART_DOCS[cmd])
        for path in [[cmd]] + [[cmd, sub] for sub in subcommands(help_of(vxsynth_bin, [cmd]))]:
            for option in options(help_of(vxsynth_bin, path)):
                seen += 1
                if not re.search(re.escape(option) + r"(?![a-z0-9-])", text):
                    missing.append(f"vxsynth {' '.join(path)} {option}")
    assert seen > 150
    assert not missing, "undocumented options (docs/cli.md or the part's document): " + ", ".join(missing)


def test_the_check_finds_an_undocumented_option():
    assert options("Options:\n  -h,--help   help\n  --new-thing TEXT   x\n  -o,--out TEXT   y\n") == ["--new-thing", "--out"]
    assert subcommands("Subcommands:\n  run   x\n  cc    y\n\nMore\n") == ["run", "cc"]
