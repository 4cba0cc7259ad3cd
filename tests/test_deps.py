# SPDX-License-Identifier: GPL-2.0
"""Every program that a target runs comes from a package that scripts/deps.sh
installs, or from a minimal Debian 12 (debootstrap --variant=minbase: the
packages of priority "required"). A script that calls a program no package
in the list provides fails here, before it fails on a new machine."""

import os
import re
import subprocess
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
BIN_DIRS = ("/usr/bin", "/bin", "/usr/sbin", "/sbin")

# Programs that are run for us, not named in our scripts: the kernel's own
# build and tools call them.
INDIRECT = {
    "rsync": "the kernel's headers_install (make conformance)",
    "flex": "the kernel's kconfig",
    "bison": "the kernel's kconfig",
    "bc": "the kernel's timeconst.h",
    "perl": "checkpatch.pl (make lint)",
    "gcc": "the kernel build",
    "xz": "unpacking linux-source-6.1.tar.xz",
    "python3": "scripts/ktap.py, kunit.py",
}

# Host-side files: what runs on the machine (the guest's files run busybox).
SOURCES = ["Makefile", ".ci/run"] + \
    ["scripts/" + f for f in sorted(os.listdir(os.path.join(TOP, "scripts"))) if f.endswith(".sh")] + \
    ["tests/" + f for f in sorted(os.listdir(os.path.join(TOP, "tests"))) if f.endswith(".sh")]

# Words of our scripts that are programs on some machines but are not run
# as programs here (a word in a message, a make target, a function name).
NOT_RUN = {"see", "info", "install", "time", "test", "which", "file", "top", "more", "tree",
           "build", "check", "boot", "status", "lint", "bench", "grade", "book", "deps",
           "guest", "clean", "report", "results", "parse", "run", "help", "lab", "patch",
           "diff", "script", "host", "ip", "link", "kill", "wait", "watch", "dir", "users",
           "last", "who", "id", "su", "env", "column", "col", "look", "rev", "unshare",
           "setsid", "mesg", "write", "wall", "login", "script", "logger", "more", "pr",
           "join", "expand", "fold", "paste", "split", "shuf", "tac", "nl", "ptx", "dd",
           "hostname", "domainname", "less", "man", "cal", "ncal", "x86_64", "linux64",
           "mount", "umount", "kernel", "captures", "namei", "rename", "renice", "chrt",
           "nice", "mkdir", "rmdir", "sync", "true", "false", "yes", "sleep", "stat",
           "opt", "reboot", "pc", "red", "open", "zip", "sh", "init", "print", "edit"}


def table():
    out = subprocess.run(["bash", os.path.join(TOP, "scripts", "deps.sh"), "--table"],
                         stdout=subprocess.PIPE, text=True, check=True).stdout
    rows = [line.split() for line in out.splitlines() if line.strip()]
    return {r[0]: (r[1], r[2]) for r in rows if r[0] != "-"}, {r[1] for r in rows}


def system_path(word):
    for d in BIN_DIRS:
        p = os.path.join(d, word)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


_OWNERS = {}


def owners():
    """{path: package} of every file in the bin directories, from dpkg's lists."""
    if not _OWNERS:
        info = "/var/lib/dpkg/info"
        for f in os.listdir(info):
            if not f.endswith(".list"):
                continue
            pkg = f[:-len(".list")].split(":")[0]
            with open(os.path.join(info, f), encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    line = line.rstrip("\n")
                    if os.path.dirname(line) in BIN_DIRS:
                        _OWNERS.setdefault(line, pkg)
    return _OWNERS


def owner(path):
    """The Debian package that holds PATH (/bin and /usr/bin are one here)."""
    o = owners()
    name = os.path.basename(path)
    for d in BIN_DIRS:
        p = os.path.join(d, name)
        if p in o:
            return o[p]
    real = os.path.realpath(path)
    return o.get(real) if real != path else None


_FIELDS = {}


def field(pkg, name):
    if (pkg, name) in _FIELDS:
        return _FIELDS[(pkg, name)]
    r = subprocess.run(["dpkg-query", "-W", "-f", "${%s}" % name, pkg], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True, check=False)
    _FIELDS[(pkg, name)] = r.stdout if r.returncode == 0 else ""
    return _FIELDS[(pkg, name)]


def provided_by(pkgs):
    """The packages in the list and those they depend on (one level)."""
    out = set(pkgs)
    for p in pkgs:
        for dep in re.split(r"[,|]", field(p, "Depends") + "," + field(p, "Pre-Depends")):
            dep = dep.strip().split(" ")[0].split(":")[0]
            if dep:
                out.add(dep)
    return out


def words(path):
    """Candidate command words of a shell file, comments dropped."""
    found = set()
    with open(os.path.join(TOP, path), encoding="utf-8") as f:
        for line in f:
            line = re.sub(r"(^|\s)#.*$", "", line)
            found.update(re.findall(r"(?<![\w./$-])([a-z][a-z0-9_+-]*[a-z0-9])(?![\w/=.-])", line))
    return found


class Deps(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.table, cls.pkgs = table()
        cls.ok_pkgs = provided_by(cls.pkgs)

    def test_indirect_programs_are_in_the_table(self):
        for prog, why in INDIRECT.items():
            self.assertIn(prog, self.table, "%s (for %s) has no row in scripts/deps.sh" % (prog, why))

    def test_each_row_names_the_package_that_holds_the_program(self):
        for prog, (pkg, _set) in self.table.items():
            path = system_path(prog)
            if not path:
                continue  # not installed here: nothing to compare
            got = owner(path)
            if got is None:
                continue
            self.assertIn(got, provided_by([pkg]),
                          "%s is in package %s here, but deps.sh says %s" % (path, got, pkg))

    def test_every_program_the_scripts_run_comes_from_a_listed_package(self):
        missing = {}
        for src in SOURCES:
            for w in words(src):
                if w in NOT_RUN or w in self.table:
                    continue
                path = system_path(w)
                if not path:
                    continue
                pkg = owner(path)
                if pkg is None or pkg in self.ok_pkgs:
                    continue
                if field(pkg, "Priority") in ("required",) or field(pkg, "Essential") == "yes":
                    continue
                missing.setdefault(w, (pkg, src))
        self.assertEqual(missing, {}, "programs the scripts run that deps.sh does not install "
                         "(program: (package, where)): %r" % missing)


if __name__ == "__main__":
    unittest.main()
