#!/usr/bin/env python3
"""The device kernels' SASS without a GPU: static instruction counts of a CUDA build's kernels.

Compiles one translation unit of a configured CUDA build again with `nvcc --keep` (the build's own
command line, from ninja), and disassembles its sm_90 cubin with nvdisasm from Debian's
nvidia-cuda-toolkit (CUDA 11.8, component non-free): the package is downloaded once into
$SHWA_DEPS/nvdisasm (default ~/.cache/shwa) and unpacked there, not installed. nvdisasm 11.8 does
not read the ELF header that CUDA 13 writes (its ABI version and the architecture in e_flags); it
reads a copy whose header says sm_90 the older way, with the code unchanged.

Static counts are not executed instructions (rare paths count as much as the hot loop; Nsight
Compute on a GPU gives those: perf/ncu_sass.py), but they show what a change to a kernel's source
does to its code before a device call: instructions, branches and their reconvergence points,
register moves.

    perf/sass.py BUILD_DIR SOURCE [--match DecoupledUpdateBody --match HostStep] [--out DIR]
    perf/sass.py --from-sass FILE.sass [--match ...]     (only the report)
e.g. perf/sass.py build/cuda-float perf/bench.cpp --match CflMaxZAtomic --match NoObserver
"""
import argparse
import collections
import os
import re
import shlex
import struct
import subprocess
import sys
import tempfile


def nvdisasm(deps):
    """Path of nvdisasm 11.8, downloaded from Debian's archive into deps/nvdisasm where missing."""
    root = os.path.join(deps, "nvdisasm")
    exe = os.path.join(root, "x", "usr", "bin", "nvdisasm")
    if os.path.exists(exe):
        return exe
    os.makedirs(os.path.join(root, "lists", "partial"), exist_ok=True)
    os.makedirs(os.path.join(root, "parts"), exist_ok=True)
    with open(os.path.join(root, "parts", "non-free.sources"), "w") as f:
        f.write("Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: non-free\n"
                "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n")
    opts = ["-o", "Dir::Etc::SourceList=/dev/null", "-o", f"Dir::Etc::SourceParts={root}/parts",
            "-o", f"Dir::State::Lists={root}/lists", "-o", f"Dir::Cache={root}/cache",
            "-o", "Debug::NoLocking=1", "-o", "APT::Sandbox::User=root"]
    print("sass.py: downloading Debian's nvidia-cuda-toolkit (about 84 MB) for nvdisasm", file=sys.stderr)
    subprocess.run(["apt-get", *opts, "-qq", "update"], check=True)
    subprocess.run(["apt-get", *opts, "-qq", "download", "nvidia-cuda-toolkit"], cwd=root, check=True)
    deb = [f for f in os.listdir(root) if f.startswith("nvidia-cuda-toolkit_") and f.endswith(".deb")][0]
    subprocess.run(["dpkg", "-x", os.path.join(root, deb), os.path.join(root, "x")], check=True)
    os.remove(os.path.join(root, deb))
    return exe


def compile_keep(build, source, out):
    """Compiles `source` as `build` does, keeping nvcc's intermediate files in `out`; the cubin."""
    cmds = subprocess.run(["ninja", "-C", build, "-t", "commands"], capture_output=True, text=True,
                          check=True).stdout.splitlines()
    src = os.path.abspath(source)
    line = next((c for c in cmds if f"-c {src}" in c), None)
    if line is None:
        sys.exit(f"sass.py: {build} compiles no {src}")
    args = shlex.split(line)
    keep, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT"):
            skip = True
            continue
        if a in ("-MD", "-c") or a == src:
            continue
        keep.append(a)
    keep += ["--keep", f"--keep-dir={out}", "-o", os.path.join(out, "unit.o"), "-c", src]
    subprocess.run(keep, cwd=build, check=True)
    cubins = [f for f in os.listdir(out) if f.endswith(".sm_90.cubin")]
    if not cubins:
        sys.exit("sass.py: nvcc kept no sm_90 cubin")
    return os.path.join(out, cubins[0])


def disassemble(cubin, exe):
    """nvdisasm's listing of a copy of `cubin` with an ELF header it reads (sm_90, ABI version 7)."""
    data = bytearray(open(cubin, "rb").read())
    data[8] = 7
    struct.pack_into("<I", data, 48, 0x005A055A)
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(data)
        f.flush()
        return subprocess.run([exe, "-c", f.name], capture_output=True, text=True, check=True).stdout


def kernels(listing):
    """{kernel's mangled name: [instruction text]} of an nvdisasm listing."""
    out = collections.OrderedDict()
    cur = None
    for line in listing.splitlines():
        m = re.match(r"\s*\.section\s+\.text\.(\S+?),", line)
        if m:
            cur = out.setdefault(m.group(1), [])
            continue
        m = re.match(r"\s+/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;", line)
        if m and cur is not None:
            cur.append(m.group(1))
    return out


def opcode(ins):
    """The opcode of an instruction without its guard predicate and modifiers: FFMA, BSSY."""
    return re.sub(r"^@!?U?P\w+\s+", "", ins).split()[0].split(".")[0]


def report(listing, match, top):
    found = 0
    for name, ins in kernels(listing).items():
        if not all(m in name for m in match):
            continue
        found += 1
        mix = collections.Counter(opcode(i) for i in ins)
        moves = sum(1 for i in ins if re.search(r"\bMOV\b|IMAD\.MOV", i))
        print(f"{name}\n  {len(ins)} instructions, {mix['BRA']} branches, {mix['BSSY']} BSSY, "
              f"{moves} moves")
        print("  " + ", ".join(f"{op} {n}" for op, n in mix.most_common(top)))
    if not found:
        sys.exit("sass.py: no kernel matches " + " ".join(match))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build", nargs="?")
    ap.add_argument("source", nargs="?")
    ap.add_argument("--from-sass", help="report on this listing instead of compiling")
    ap.add_argument("--match", action="append", default=[], help="kernel names containing this (all of them)")
    ap.add_argument("--out", help="where nvcc's files and kernels.sass go (default: a new temporary folder)")
    ap.add_argument("--top", type=int, default=12)
    a = ap.parse_args()
    if a.from_sass:
        listing = open(a.from_sass).read()
    else:
        if not (a.build and a.source):
            ap.error("BUILD_DIR and SOURCE, or --from-sass")
        out = os.path.abspath(a.out or tempfile.mkdtemp(prefix="shwa-sass-"))
        os.makedirs(out, exist_ok=True)
        deps = os.environ.get("SHWA_DEPS", os.path.expanduser("~/.cache/shwa"))
        exe = nvdisasm(deps)
        listing = disassemble(compile_keep(os.path.abspath(a.build), a.source, out), exe)
        with open(os.path.join(out, "kernels.sass"), "w") as f:
            f.write(listing)
        print(f"sass.py: listing in {out}/kernels.sass", file=sys.stderr)
    report(listing, a.match, a.top)


if __name__ == "__main__":
    main()
