#!/usr/bin/env python3
"""Kernels and host programs build against Vortex-named headers only.

1. vxsynth's Vortex-named headers (vortex-rt/include/*.h, src/vxsim/host/include/vortex.h)
   declare only names that Vortex 2.x's headers declare (vortex2_names.txt); vxsynth's own
   helpers live in project-only headers (vortex-rt/extra, vortex_vxsim.h).
2. Every example kernel (vortex-rt/examples) and the kernels of a sample of generated
   benchmarks (`vxsynth gen`) build with `vxsynth sim cc`, with clang (the default, with the
   divergence plugin) and with GCC (`--compiler gcc`), against a runtime folder that holds
   only the Vortex-named headers (no vortex-rt/extra), and the build writes the .bin image that
   SimX's standalone runner takes. Each program folder is copied first, with the one vxsynth
   header that travels with kernels, vx_branchless.h, beside kernel.cpp (a generated benchmark
   has it already), as a user copies a program into a Vortex tree.
3. Their host programs (main.cpp) compile with Vortex's host flags (tests/regression/common.mk:
   -std=c++17 -Wall -Wextra -pedantic -Wfatal-errors -O2) against vortex.h, VX_config.h and
   VX_types.h alone (no vortex_vxsim.h); a generated benchmark's also with vxsynth's src/ for
   the ops library its host program reads and checks tensor files with (its Makefile's
   VXSYNTH_HOME).

Since the headers of step 1 hold Vortex names only, steps 2 and 3 succeeding means the sources
use Vortex names only (and the files that travel with them, such as a benchmark's
vx_branchless.h).

    check_vortex_names.py --vxsynth BUILD/vxsynth --source SRC_DIR --work SCRATCH_DIR
"""
import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import header_names  # noqa: E402

# The kernel-side and host-side header files Vortex 2.x ships under these names.
VORTEX_KERNEL_HEADERS = {"VX_config.h", "VX_types.h", "vx_intrinsics.h", "vx_print.h", "vx_spawn.h", "vx_tensor.h"}
VORTEX_HOST_HEADERS = {"vortex.h", "VX_config.h", "VX_types.h"}
HOST_FLAGS = ["-std=c++17", "-Wall", "-Wextra", "-pedantic", "-Wfatal-errors", "-O2", "-fsyntax-only"]
# Generated benchmarks: suite references spanning the op kinds and both engine classes.
GEN_SAMPLE = [
    ["--reference", "suite/vx-robotics/h200/act-1-linear/reference.json"],
    ["--reference", "suite/vx-robotics/h200/act-5-conv2d/reference.json"],
    ["--reference", "suite/vx-robotics/h200/diffusion_policy-1-conv1d/reference.json"],
    ["--op", "linear", "--shape", "M=37,N=29,K=70", "--dtype", "fp16", "--engine", "tensor", "--block", "128"],
]

failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message, flush=True)


def read_vortex_names():
    with open(os.path.join(HERE, "vortex2_names.txt"), encoding="utf-8") as f:
        return {line.strip() for line in f if line.strip() and not line.startswith("#")}


def check_header_names(source):
    vortex = read_vortex_names()
    include = os.path.join(source, "vortex-rt", "include")
    headers = [os.path.join(include, name) for name in sorted(os.listdir(include))]
    headers.append(os.path.join(source, "src", "vxsim", "host", "include", "vortex.h"))
    for path in headers:
        name = os.path.basename(path)
        if name not in VORTEX_KERNEL_HEADERS | VORTEX_HOST_HEADERS:
            fail(f"{path}: not a Vortex 2.x header name; project-only headers belong in vortex-rt/extra")
            continue
        extra = sorted(header_names.header_names(path) - vortex)
        if extra:
            fail(f"{path}: names that Vortex 2.x headers do not declare: {', '.join(extra)}")
    print(f"names: {len(headers)} Vortex-named headers checked against {len(vortex)} Vortex 2.x names", flush=True)


def run(argv, cwd=None):
    result = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return result.returncode, result.stdout


def vortex_only_trees(source, work):
    """A runtime folder and a host include folder holding only Vortex-named headers."""
    runtime = os.path.join(work, "vortex-only-rt")
    host = os.path.join(work, "vortex-only-host")
    for d in (runtime, host):
        shutil.rmtree(d, ignore_errors=True)
    rt = os.path.join(source, "vortex-rt")
    shutil.copytree(os.path.join(rt, "include"), os.path.join(runtime, "include"))
    shutil.copytree(os.path.join(rt, "src"), os.path.join(runtime, "src"))
    shutil.copy(os.path.join(rt, "link32.ld"), runtime)
    os.makedirs(host)
    for name in VORTEX_HOST_HEADERS:
        folder = "src/vxsim/host/include" if name == "vortex.h" else "vortex-rt/include"
        shutil.copy(os.path.join(source, folder, name), host)
    return runtime, host


def build_program(vxsynth, source, runtime, host, original, out_dir, label):
    folder = os.path.join(out_dir, "src")
    shutil.copytree(original, folder, ignore=shutil.ignore_patterns("data"))
    companion = os.path.join(folder, "vx_branchless.h")
    if not os.path.exists(companion):
        shutil.copy(os.path.join(source, "vortex-rt", "extra", "vx_branchless.h"), companion)
    kernel = os.path.join(folder, "kernel.cpp")
    for compiler in ("clang", "gcc"):
        # build-*/ does not exist yet: sim cc makes it.
        vxbin = os.path.join(out_dir, "build-" + compiler, "kernel.vxbin")
        code, output = run([vxsynth, "sim", "cc", "--compiler", compiler, "--runtime", runtime, kernel, "-I", folder,
                            "-o", vxbin])
        if code != 0:
            fail(f"{label}: kernel does not build with {compiler} against Vortex-named headers only:\n{output}")
            return
        check_images(vxbin, f"{label} ({compiler})")
    main = os.path.join(folder, "main.cpp")
    if os.path.isfile(main):
        cxx = os.environ.get("CXX", "g++")
        # A generated benchmark's host program is vxsynth's vortex_host/main.cpp: it reads and
        # checks tensor files with vxsynth's ops library, so its Makefile adds what it adds here
        # (-std=c++20 -I$(VXSYNTH_HOME)/src); Vortex's API still comes from vortex.h alone.
        extra = ["-std=c++20", "-I", os.path.join(source, "src")] if label.startswith("generated") else []
        code, output = run([cxx] + HOST_FLAGS + extra + ["-I", folder, "-I", host, main])
        if code != 0:
            fail(f"{label}: host program does not compile with Vortex's host flags against vortex.h alone:\n{output}")
    print(f"built: {label}", flush=True)


def check_images(vxbin, label):
    for ext in (".vxbin", ".elf", ".bin"):
        path = vxbin[: -len(".vxbin")] + ext
        if not os.path.isfile(path) or os.path.getsize(path) == 0:
            fail(f"{label}: sim cc wrote no {ext}")
    vxbin_size = os.path.getsize(vxbin)
    bin_path = vxbin[: -len(".vxbin")] + ".bin"
    if os.path.isfile(bin_path):
        with open(vxbin, "rb") as f:
            vxbin_bytes = f.read()
        with open(bin_path, "rb") as f:
            bin_bytes = f.read()
        if int.from_bytes(vxbin_bytes[:8], "little") != 0x80000000 or bin_bytes != vxbin_bytes[16:]:
            fail(f"{label}: .bin is not the .vxbin image loaded at 0x80000000 ({len(bin_bytes)} vs {vxbin_size} bytes)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vxsynth", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    source = os.path.abspath(args.source)
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)

    check_header_names(source)
    runtime, host = vortex_only_trees(source, work)

    jobs = []  # (folder, output folder, label)
    examples = os.path.join(source, "vortex-rt", "examples")
    for name in sorted(os.listdir(examples)):
        folder = os.path.join(examples, name)
        if os.path.isfile(os.path.join(folder, "kernel.cpp")):
            jobs.append((folder, os.path.join(work, "examples", name), "example " + name))
    for i, gen_args in enumerate(GEN_SAMPLE):
        out = os.path.join(work, "gen", str(i))
        shutil.rmtree(out, ignore_errors=True)
        code, output = run([args.vxsynth, "gen"] + gen_args + ["--out", out], cwd=source)
        if code != 0:
            fail(f"vxsynth gen {' '.join(gen_args)} failed:\n{output}")
            continue
        jobs.append((os.path.join(out, "vortex"), os.path.join(out, "build"), "generated " + " ".join(gen_args)))

    def build(job):
        folder, out, label = job
        shutil.rmtree(out, ignore_errors=True)
        build_program(args.vxsynth, source, runtime, host, folder, out, label)

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(build, jobs))

    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("all built against Vortex-named headers only")
    return 0


if __name__ == "__main__":
    sys.exit(main())
