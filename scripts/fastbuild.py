#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Which kernel objects an edit needs rebuilt, without kbuild's walk.

    git diff-tree -r -z --no-renames --name-status OLD NEW |
        fastbuild.py OBJ_DIR KERNEL_DIR [--max N]

OLD is the tree of the last good build in OBJ_DIR, NEW the tree to build.
On success (exit 0) the objects to rebuild are printed, one per line
(relative to OBJ_DIR; none when the edit touches nothing that is built);
build-kernel.sh then builds just those (kbuild single targets), and
init/version.o, whose version string kbuild remakes on every walk, and
links vmlinux again from the archives it has. Exit 1, with the reason on stdout,
when only kbuild's full walk can tell: a file that is not C, a header or
assembler (a Makefile, Kconfig, a script, a linker script), a deleted file,
a changed file that something other than a vmlinux object depends on (a
generated header such as asm-offsets.h, a host tool, the linker script),
or more than --max objects (then the walk is a small part of the work).

Which objects depend on a file is read where kbuild keeps it: each
object's .NAME.o.cmd lists its source and every header it included.
Standard library only; the unit tests are in tests/test_fastbuild.py.
"""
import argparse
import os
import subprocess
import sys

SOURCE_EXT = (".c", ".h", ".S")
# changes that no build reads
IGNORED_PREFIXES = ("Documentation/",)


class Full(Exception):
    """Only a full kbuild run can tell what to rebuild."""


def parse_name_status(data):
    """git diff-tree -z --name-status output -> [(status, path)]."""
    parts = data.split("\0")
    out = []
    i = 0
    while i + 1 < len(parts):
        status, path = parts[i], parts[i + 1]
        if not status:
            break
        out.append((status[0], path))
        i += 2
    return out


def cmd_target(cmd_path, obj_dir):
    """OBJ_DIR/fs/.exec.o.cmd -> fs/exec.o"""
    rel = os.path.relpath(cmd_path, obj_dir)
    d, base = os.path.split(rel)
    name = base[1:-4] if base.startswith(".") and base.endswith(".cmd") else base
    return os.path.normpath(os.path.join(d, name))


def cmd_deps(text, obj_dir="."):
    """The files a .cmd file names as its source and dependencies, as
    absolute paths (kbuild writes them absolute, or relative to the obj
    dir when ccache's CCACHE_BASEDIR made them so)."""
    return {os.path.normpath(os.path.join(os.path.abspath(obj_dir), d))
            for d in _cmd_deps(text)}


def _cmd_deps(text):
    deps = set()
    in_deps = False
    for line in text.splitlines():
        if line.startswith("source_") and ":=" in line:
            deps.add(line.split(":=", 1)[1].strip())
            in_deps = False
        elif line.startswith("deps_") and ":=" in line:
            in_deps = True
            rest = line.split(":=", 1)[1].strip().rstrip("\\").strip()
            if rest:
                deps.add(rest)
        elif in_deps:
            s = line.strip()
            if not s:
                in_deps = False
                continue
            s = s.rstrip("\\").strip()
            if s and not s.startswith("$("):
                deps.add(s)
            if not line.rstrip().endswith("\\"):
                in_deps = False
    return deps


def grep_cmd_files(obj_dir, paths):
    """The .cmd files under obj_dir that mention any of paths (a superset)."""
    # the path from the tree's top: it ends both spellings of the file
    args = ["grep", "-rlF", "--include=.*.cmd"]
    for p in paths:
        args += ["-e", p]
    args.append(obj_dir)
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if r.returncode not in (0, 1):
        raise Full("cannot search %s" % obj_dir)
    return [l for l in r.stdout.splitlines() if l]


def vmlinux_members(obj_dir):
    """The objects vmlinux.a (a thin archive) is made of."""
    # ar names a thin archive's members from where it runs
    r = subprocess.run(["ar", "t", "vmlinux.a"], cwd=obj_dir,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if r.returncode != 0:
        raise Full("no vmlinux.a to link from")
    return {os.path.normpath(l) for l in r.stdout.splitlines() if l}


def objects_to_rebuild(changes, obj_dir, kernel_dir, max_objects=30,
                       grep=grep_cmd_files, members=vmlinux_members):
    src = os.path.realpath(kernel_dir)
    wanted = {}
    for status, path in changes:
        if path.startswith(IGNORED_PREFIXES):
            continue
        if not path.endswith(SOURCE_EXT):
            raise Full("%s is not C, a header or assembler" % path)
        if status == "D":
            raise Full("%s was deleted" % path)
        wanted[os.path.normpath(os.path.join(src, path))] = path
    if not wanted:
        return []
    targets = set()
    for cmd in grep(obj_dir, sorted("/" + p for p in wanted.values())):
        try:
            with open(cmd, errors="replace") as f:
                deps = cmd_deps(f.read(), obj_dir)
        except OSError:
            raise Full("cannot read %s" % cmd)
        hit = deps & set(wanted)
        if hit:
            targets.add((cmd_target(cmd, obj_dir), sorted(hit)[0]))
    if not targets:
        return []
    have = members(obj_dir)
    for t, dep in sorted(targets):
        if t not in have:
            raise Full("%s is used by %s, which is not a vmlinux object" % (wanted[dep], t))
    objs = sorted({t for t, _ in targets})
    if len(objs) > max_objects:
        raise Full("%d objects to rebuild" % len(objs))
    return objs


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    p.add_argument("obj_dir")
    p.add_argument("kernel_dir")
    p.add_argument("--max", type=int, default=30)
    a = p.parse_args(argv)
    data = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
    try:
        objs = objects_to_rebuild(parse_name_status(data), a.obj_dir, a.kernel_dir, a.max)
    except Full as e:
        print(e)
        return 1
    for o in objs:
        print(o)
    return 0


if __name__ == "__main__":
    sys.exit(main())
