#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run one job of a GitHub workflow here, the way a runner runs it.

  ghjob.py WORKFLOW JOB [--input K=V]... [--matrix JSON] [--needs J=FILE]...
           [--artifacts DIR] [--outputs FILE] [--set K=V]...

The job's `run:` steps run in order in the current directory (the
checkout), each as `bash --noprofile --norc -e` with the job's and the
step's env, and GITHUB_ENV, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and
GITHUB_WORKSPACE as a runner gives them: a line NAME=VALUE written to
GITHUB_ENV is in the env of every later step, and a step with an id gets
its GITHUB_OUTPUT lines as steps.ID.outputs. A step without `if:` runs while
every earlier one passed; `if: always()` always, `if: failure()` after a
failure. Of the actions the course's templates use, checkout is the
current directory, cache is left out (the compiler cache stays where it
is), and upload-artifact / download-artifact copy folders under
--artifacts DIR (one folder per artifact name). Any other action, or an
expression other than inputs.K, matrix.K, needs.J.outputs.K,
steps.ID.outputs.K and github.workspace, is an error: nothing is guessed.

--set K=V puts K in every step's env after the job's own (a machine that
is not a runner may keep its compiler cache elsewhere).

--cache DIR: actions/cache/restore and actions/cache/save keep their
paths in DIR, one copy per key (hashFiles() and github.sha as a runner
computes them), so that a second run finds what the first saved; without
it they are left out. GitHub Classroom's grading reporter reads its
runners' RUNNER_RESULTS as it does (base64 JSON), prints the total and
fails the step when a runner did not pass. Each step's time is printed,
and the job's in minutes.

The job's outputs are written as JSON to --outputs FILE, for --needs of a
later job. The summary a step wrote is printed at the end. Exit status: 0
when every step that ran passed, 1 when one failed, 2 on a usage error.

The course uses it in make test-fresh, to run ci/github's templates in a
brand-new Debian 12 root. The YAML is read by perl's core CPAN::Meta::YAML:
nothing outside Debian's perl and Python's standard library."""

import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

PERL = r'''local $/; my $y = CPAN::Meta::YAML->read_string(<STDIN>)
  or die CPAN::Meta::YAML->errstr; print JSON::PP->new->encode($y->[0])'''

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


class Error(Exception):
    pass


def load(path):
    """A workflow file as JSON-like data (block-style YAML)."""
    with open(path, "rb") as fh:
        r = subprocess.run(["perl", "-MCPAN::Meta::YAML", "-MJSON::PP", "-e", PERL],
                           input=fh.read(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           check=False)
    if r.returncode:
        raise Error("%s does not parse: %s" % (path, r.stderr.decode().strip()))
    return json.loads(r.stdout)


def hash_files(args, ctx):
    """hashFiles('pattern', ...): one sha256 over the files the patterns
    match under the workspace, in path order ('' when none), as a runner."""
    import glob
    import hashlib
    pats = re.findall(r"'([^']*)'", args)
    if not pats:
        raise Error("cannot evaluate hashFiles(%s)" % args)
    work = ctx["github"]["workspace"]
    files = set()
    for pat in pats:
        for f in glob.glob(os.path.join(work, pat), recursive=True):
            if os.path.isfile(f):
                files.add(os.path.relpath(f, work))
    if not files:
        return ""
    h = hashlib.sha256()
    for f in sorted(files):
        with open(os.path.join(work, f), "rb") as fh:
            h.update(hashlib.sha256(fh.read()).digest())
    return h.hexdigest()


def lookup(expr, ctx):
    """The value of one expression: a dotted name in ctx, hashFiles(), or
    A == 'x' / A != 'x' of those; nothing more."""
    m = re.fullmatch(r"(.+?)\s*(==|!=)\s*'([^']*)'", expr)
    if m:
        try:
            v = lookup(m.group(1), ctx)
        except Error:
            v = ""  # an output never set is '' to a runner
        return "true" if (v == m.group(3)) == (m.group(2) == "==") else "false"
    m = re.fullmatch(r"hashFiles\((.*)\)", expr)
    if m:
        return hash_files(m.group(1), ctx)
    parts = expr.split(".")
    if not all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", p) for p in parts):
        raise Error("cannot evaluate ${{ %s }}" % expr)
    v = ctx
    for p in parts:
        if not isinstance(v, dict) or p not in v:
            raise Error("cannot evaluate ${{ %s }}: no %s" % (expr, p))
        v = v[p]
    return v if isinstance(v, str) else json.dumps(v)


def expand(text, ctx):
    return EXPR.sub(lambda m: lookup(m.group(1), ctx), str(text))


def should_run(step, failed, ctx=None):
    cond = str(step.get("if", "")).strip()
    m = EXPR.fullmatch(cond)
    cond = m.group(1) if m else cond
    if cond in ("", "success()"):
        return not failed
    if cond == "always()":
        return True
    if cond == "failure()":
        return failed
    if re.fullmatch(r".+\s*(==|!=)\s*'[^']*'", cond) and ctx is not None:
        return not failed and lookup(cond, ctx) == "true"
    raise Error("cannot evaluate if: %s" % cond)


def read_pairs(path):
    """NAME=VALUE lines of a GITHUB_ENV or GITHUB_OUTPUT file (and the
    NAME<<EOF ... EOF form)."""
    out, lines = {}, open(path, encoding="utf-8").read().splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, mark = line.split("<<", 1)
            val = []
            while i < len(lines) and lines[i] != mark:
                val.append(lines[i])
                i += 1
            i += 1
            out[name] = "\n".join(val)
        elif "=" in line:
            name, val = line.split("=", 1)
            out[name] = val
    return out


def copy_into(src, dst):
    if os.path.isdir(src):
        shutil.copytree(src, dst, dirs_exist_ok=True, symlinks=True)
    elif os.path.isfile(src):
        os.makedirs(dst, exist_ok=True)
        shutil.copy2(src, dst)


def cache_action(name, step, w, ctx, caches):
    """actions/cache/restore and /save with a folder of saved caches (one
    per key, a copy of the path): restore sets steps.ID.outputs.cache-hit;
    restore-keys are prefixes, newest first."""
    path = w.get("path", "").strip()
    if not path or "\n" in path:
        raise Error("this runner caches one path per step, not %r" % path)
    key = w.get("key", "")
    if os.path.isabs(path):
        # (the runner's container's own folder, which this machine's is not)
        return "left out: %s is outside the workspace" % path
    work = os.path.realpath(ctx["github"]["workspace"])
    full = os.path.realpath(os.path.join(work, path))
    if not full.startswith(work + os.sep):
        raise Error("a cache path outside the workspace: %s" % path)
    kname = re.sub(r"[^A-Za-z0-9._-]", "_", key)
    if not kname.strip("."):
        raise Error("not a cache key: %r" % key)
    store = os.path.join(caches, kname)
    if name == "actions/cache/save":
        if os.path.exists(store):
            return "the cache %s exists: not saved again" % key
        if not os.path.exists(full):
            return "nothing at %s to save" % path
        tmp = store + ".saving"
        shutil.rmtree(tmp, ignore_errors=True)
        if os.path.isdir(full):
            shutil.copytree(full, tmp, symlinks=True)
        else:
            os.makedirs(tmp)
            shutil.copy2(full, tmp)
        os.replace(tmp, store)
        return "saved %s as %s" % (path, key)
    hit = os.path.isdir(store)
    got = store if hit else None
    if not hit:
        for pre in [x.strip() for x in w.get("restore-keys", "").split("\n") if x.strip()]:
            pre = re.sub(r"[^A-Za-z0-9._-]", "_", pre)
            c = sorted((x for x in os.listdir(caches) if x.startswith(pre)
                        and not x.endswith(".saving")),
                       key=lambda x: os.path.getmtime(os.path.join(caches, x)), reverse=True)
            if c:
                got = os.path.join(caches, c[0])
                break
    if step.get("id"):
        ctx["steps"][step["id"]] = {"outputs": {"cache-hit": "true" if hit else "false"}}
    if not got:
        return "no cache for %s" % key
    shutil.rmtree(full, ignore_errors=True) if os.path.isdir(full) else None
    copy_into(got, full)
    return "restored %s from %s%s" % (path, os.path.basename(got), "" if hit else " (a restore key)")


def reporter(step, w, ctx, env):
    """GitHub Classroom's grading reporter: every runner's RUNNER_RESULTS
    (base64 JSON) read and checked as it reads them; its total printed;
    a failed or errored runner fails the step, as there."""
    import base64
    total = maxs = 0
    bad = []
    for r in [x.strip() for x in w.get("runners", "").split(",") if x.strip()]:
        raw = env.get(r.upper() + "_RESULTS", "")
        try:
            doc = json.loads(base64.b64decode(raw, validate=True).decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise Error("the reporter cannot read %s_RESULTS as base64 JSON" % r.upper())
        if doc.get("status") not in ("pass", "fail", "error") or not isinstance(
                doc.get("tests"), list) or not isinstance(doc.get("max_score"), (int, float)):
            raise Error("%s_RESULTS is not a runner's result (status, max_score, tests)" % r.upper())
        for t in doc["tests"]:
            if not isinstance(t.get("name"), str) or t.get("status") not in ("pass", "fail", "error") \
                    or not isinstance(t.get("score"), (int, float)):
                raise Error("%s_RESULTS: a test without name, status or score: %r" % (r.upper(), t))
        maxs += doc["max_score"]
        total += sum(t["score"] for t in doc["tests"])
        if doc["status"] != "pass":
            bad.append(r)
    line = "Total points: %g/%g" % (round(total, 2), maxs)
    if bad:
        raise StepFailed(line + "; failed: " + ", ".join(bad))
    return line


class StepFailed(Exception):
    pass


def action(step, uses, ctx, artifacts, caches=None, env=None):
    """The few actions the templates use; returns a line saying what was done."""
    name = uses.split("@", 1)[0]
    if name == "actions/checkout":
        return "the checkout is the current directory"
    if name in ("actions/cache", "actions/cache/restore", "actions/cache/save"):
        if name == "actions/cache" or not caches:
            return "left out: the cache stays where it is"
        w = {k: expand(v, ctx) for k, v in (step.get("with") or {}).items()}
        return cache_action(name, step, w, ctx, caches)
    if name == "classroom-resources/autograding-grading-reporter":
        senv = dict(env or {})
        senv.update({k: expand(v, ctx) for k, v in (step.get("env") or {}).items()})
        w = {k: expand(v, ctx) for k, v in (step.get("with") or {}).items()}
        return reporter(step, w, ctx, senv)
    if name not in ("actions/upload-artifact", "actions/download-artifact"):
        raise Error("an action this runner does not know: %s" % uses)
    if not artifacts:
        return "left out: no --artifacts folder"
    w = {k: expand(v, ctx) for k, v in (step.get("with") or {}).items()}
    if name == "actions/upload-artifact":
        dst = os.path.join(artifacts, w.get("name", "artifact"))
        for p in w.get("path", "").split("\n"):
            if p.strip():
                copy_into(p.strip(), dst)
        return "uploaded %s as %s" % (w.get("path", "").strip(), w.get("name", "artifact"))
    if name == "actions/download-artifact":
        dst = w.get("path") or "."
        os.makedirs(dst, exist_ok=True)
        got = sorted(a for a in os.listdir(artifacts)
                     if fnmatch.fnmatchcase(a, w.get("pattern", w.get("name", "*"))))
        for a in got:
            copy_into(os.path.join(artifacts, a), os.path.join(dst, a))
        return "downloaded %d artifacts into %s" % (len(got), dst)


def run_job(flow, job_name, inputs, matrix, needs, artifacts, log=sys.stdout, sets=None,
            caches=None):
    job = flow["jobs"].get(job_name)
    if job is None:
        raise Error("no job %r (jobs: %s)" % (job_name, ", ".join(flow["jobs"])))
    work = os.getcwd()
    ctx = {"inputs": inputs, "matrix": matrix, "needs": needs, "steps": {},
           "github": {"workspace": work, "sha": subprocess.run(
               ["git", "-C", work, "rev-parse", "HEAD"], stdout=subprocess.PIPE,
               stderr=subprocess.DEVNULL, check=False).stdout.decode().strip() or "0" * 40}}
    tmp = tempfile.mkdtemp(prefix="ghjob.")
    files = {k: os.path.join(tmp, k.lower()) for k in
             ("GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY")}
    env = dict(os.environ)
    env.update({k: expand(v, ctx) for k, v in (job.get("env") or {}).items()})
    env.update(sets or {})
    env.update(files, GITHUB_WORKSPACE=work, GITHUB_ACTIONS="true")
    failed = None
    times = []
    start = time.time()
    open(files["GITHUB_STEP_SUMMARY"], "w").close()
    try:
        for n, step in enumerate(job["steps"], 1):
            title = step.get("name") or step.get("uses") or step.get("run", "").split("\n")[0]
            if not should_run(step, failed is not None, ctx):
                log.write("ghjob: step %d, %s: not run (if: %s)\n"
                          % (n, title, step.get("if", "success()")))
                continue
            t0 = time.time()
            if "uses" in step:
                try:
                    said = action(step, step["uses"], ctx, artifacts, caches, env)
                except StepFailed as e:
                    said = "failed: %s" % e
                    failed = failed or title
                log.write("ghjob: step %d, %s: %s (%.0f s)\n" % (n, title, said, time.time() - t0))
                times.append((title, time.time() - t0))
                continue
            for k in ("GITHUB_ENV", "GITHUB_OUTPUT"):  # a file per step, as a runner
                open(files[k], "w").close()
            senv = dict(env)
            senv.update({k: expand(v, ctx) for k, v in (step.get("env") or {}).items()})
            script = os.path.join(tmp, "step%d.sh" % n)
            with open(script, "w", encoding="utf-8") as fh:
                fh.write(expand(step["run"], ctx))
            log.write("ghjob: step %d, %s\n" % (n, title))
            log.flush()
            rc = subprocess.call(["bash", "--noprofile", "--norc", "-e", script], env=senv)
            times.append((title, time.time() - t0))
            env.update(read_pairs(files["GITHUB_ENV"]))
            if step.get("id"):
                ctx["steps"][step["id"]] = {"outputs": read_pairs(files["GITHUB_OUTPUT"])}
            if rc:
                log.write("ghjob: step %d, %s: failed (exit %d)\n" % (n, title, rc))
                failed = failed or title
        outputs = {k: expand(v, ctx) for k, v in (job.get("outputs") or {}).items()}
        with open(files["GITHUB_STEP_SUMMARY"], encoding="utf-8") as fh:
            summary = fh.read()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if summary:
        log.write("ghjob: the job's summary:\n" + summary)
    slow = sorted(times, key=lambda x: -x[1])[:4]
    log.write("ghjob: the job took %.1f min (%s)\n" % ((time.time() - start) / 60, ", ".join(
        "%s %.0f s" % x for x in slow)))
    log.write("ghjob: job %s %s\n" % (job_name, "failed at: " + failed if failed else "passed"))
    return failed is None, outputs, summary


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(prog="ghjob.py", description=__doc__.split("\n")[0])
    ap.add_argument("workflow")
    ap.add_argument("job")
    ap.add_argument("--input", action="append", default=[], metavar="K=V")
    ap.add_argument("--matrix", default="{}", metavar="JSON")
    ap.add_argument("--needs", action="append", default=[], metavar="J=FILE")
    ap.add_argument("--artifacts", metavar="DIR")
    ap.add_argument("--outputs", metavar="FILE")
    ap.add_argument("--set", action="append", default=[], metavar="K=V")
    ap.add_argument("--cache", metavar="DIR")
    a = ap.parse_args(argv)
    try:
        inputs = dict(kv.split("=", 1) for kv in a.input)
        needs = {}
        for jf in a.needs:
            j, f = jf.split("=", 1)
            with open(f, encoding="utf-8") as fh:
                needs[j] = {"outputs": json.load(fh)}
        if a.artifacts:
            os.makedirs(a.artifacts, exist_ok=True)
        if a.cache:
            os.makedirs(a.cache, exist_ok=True)
        ok, outputs, _ = run_job(load(a.workflow), a.job, inputs, json.loads(a.matrix),
                                 needs, a.artifacts, sets=dict(kv.split("=", 1) for kv in a.set),
                                 caches=a.cache and os.path.abspath(a.cache))
    except (Error, ValueError, OSError) as e:
        sys.stderr.write("ghjob: %s\n" % e)
        return 2
    if a.outputs:
        with open(a.outputs, "w", encoding="utf-8") as fh:
            json.dump(outputs, fh)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
