#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Harness unit tests: no kernel build, no QEMU. Seconds.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
. "$here/lib.sh"
fx=$here/fixtures
export NO_COLOR=1

# --- KTAP parsing -------------------------------------------------------
k() { "$top/scripts/ktap.sh" "$@"; }
tmp_u=$(mktemp)
t_expect "ktap: a pass and a fail (a SKIP is not a failure)" "01 PASS 2 2
02 FAIL 2 3" "$(k results "$fx/ktap/pass-fail.ktap" "01 02")"
t_grep "ktap: the report shows the failed point's errno" \
	'clone: EPERM' "$(k report "$fx/ktap/pass-fail.ktap" "01 02")"
t_grep "ktap: the report shows a skipped point and why" \
	'ok 3 c # SKIP no tun device' "$(k report "$fx/ktap/pass-fail.ktap" "01 02")"
t_expect "ktap: a panicked guest leaves its labs MISSING, with the points done" "01 MISSING 2 6
02 MISSING 0 0" "$(k results "$fx/ktap/panic.ktap" "01 02")"
rep=$(k report "$fx/ktap/panic.ktap" "01")
t_grep "ktap: the report names the point the guest died in" 'stopped during point 3, c_third_point' "$rep"
t_grep "ktap: the report quotes the oops from the kernel log" 'Oops: 0002' "$rep"
t_grep "ktap: the report shows where (RIP)" 'RIP: 0010:bprm_execve' "$rep"
t_grep "ktap: a repeated Call Trace is shown once" 'Call Trace: \(2 times\)' "$rep"
t_expect "ktap: fewer results than planned is a FAIL" "01 FAIL 1 3" \
	"$(k results "$fx/ktap/short-plan.ktap" "01")"
t_expect "ktap: a check that timed out" "01 TIMEOUT 1 3" "$(k results "$fx/ktap/timeout.ktap" "01")"
t_expect "ktap: garbage gives MISSING, not a crash" "01 MISSING 0 0" \
	"$(k results "$fx/ktap/garbage.ktap" "01")"
t_expect "ktap: results printed inside a check, or past its plan, do not count" "01 FAIL 0 2" \
	"$(k results "$fx/ktap/forged.ktap" "01")"
if python3 -m unittest discover -s "$here" -p 'test_*.py' >"$tmp_u" 2>&1; then
	t_ok "python unit tests (tests/test_*.py): $(grep -E '^Ran [0-9]+' "$tmp_u")"
else
	t_fail "python unit tests (tests/test_*.py)" "$(tail -30 "$tmp_u")"
fi
rm -f "$tmp_u"

# --- the kernel bases (lib.sh) --------------------------------------------
base_of() { env -u BUILD -u KERNEL_DIR -u STEPS_DIR -u SOLUTIONS_DIR "$@" bash -c '. "$1/scripts/lib.sh" && echo "$KERNEL ${STEPS_DIR#"$1"/} ${SOLUTIONS_DIR#"$1"/} ${BASE_SUB:--} ${KERNEL_DIR#"$1"/} $TARBALL"' _ "$top" 2>&1; }
t_expect "bases: KERNEL=6.12, the main base, is build/linux; its patches are the series" \
	"6.12 kernel-steps solutions - build/linux /usr/src/linux-source-6.12.tar.xz" "$(base_of KERNEL=6.12)"
t_expect "bases: KERNEL=6.1 is the second, in build/6.1/, with its own patches in 6.1/" \
	"6.1 kernel-steps solutions 6.1 build/6.1/linux /usr/src/linux-source-6.1.tar.xz" "$(base_of KERNEL=6.1)"
# one series: a base applies its own patch of a step where it has one, the
# series' elsewhere, and a step of its own too
ser=$(mktemp -d)
mkdir -p "$ser/kernel-steps/6.1" "$ser/solutions/6.1"
touch "$ser/kernel-steps/01-a.patch" "$ser/kernel-steps/02-b.patch" "$ser/kernel-steps/6.1/02-b.patch" \
	"$ser/kernel-steps/6.1/03-c.patch" "$ser/solutions/01-a.patch"
series_of_base() { env -u BUILD -u KERNEL_DIR STEPS_DIR="$ser/kernel-steps" SOLUTIONS_DIR="$ser/solutions" KERNEL="$1" \
	bash -c '. "$1/scripts/lib.sh" && { base_patches kernel-steps "0*.patch"; base_patches solutions "0*.patch"; } | sed "s#^$2/##" | tr "\n" " "' _ "$top" "$ser"; }
t_expect "series: the main base applies the series" "kernel-steps/01-a.patch kernel-steps/02-b.patch solutions/01-a.patch " \
	"$(series_of_base 6.12)"
t_expect "series: the other base, its own patch in place of the series' one" \
	"kernel-steps/01-a.patch kernel-steps/6.1/02-b.patch kernel-steps/6.1/03-c.patch solutions/01-a.patch " "$(series_of_base 6.1)"
rm -rf "$ser"
# the layout before 6.12 was the main base (6.1 in build/linux, 6.12 in
# build/6.12/linux), in a course of its own: moved once by lib.sh, with
# the student's branches, a linked worktree and build/KERNEL
lay=$(mktemp -d)
mkdir -p "$lay/scripts" "$lay/build/6.12/linux" "$lay/build/obj"
cp "$top/scripts/lib.sh" "$lay/scripts/"
for v in 1 12; do
	d=$lay/build/linux
	[ "$v" = 1 ] || d=$lay/build/6.12/linux
	mkdir -p "$d"
	printf 'VERSION = 6\nPATCHLEVEL = %s\n' "$v" >"$d/Makefile"
	git -C "$d" init -q && git -C "$d" add Makefile &&
		git -C "$d" -c user.name=t -c user.email=t@t commit -qm "base 6.$v" && git -C "$d" branch student/lab-01
done
git -C "$lay/build/linux" worktree add -q --detach "$lay/build/test/linux" 2>/dev/null
echo 6.1 >"$lay/build/KERNEL"
out=$(cd "$lay" && env -u BUILD -u KERNEL_DIR -u KERNEL bash -c '. scripts/lib.sh && echo "$KERNEL ${KERNEL_DIR#"$TOP"/}"' 2>&1)
t_grep "layout: an old checkout is moved, and says so" 'moving this checkout to the new layout' "$out"
t_grep "... the remembered base (6.1) is found in its new place" '^6.1 build/6.1/linux$' "$out"
t_expect "... 6.1's tree, branches and objects in build/6.1/, 6.12's in build/linux" "1 12 student/lab-01 student/lab-01 obj" \
	"$(sed -n 's/^PATCHLEVEL = //p' "$lay/build/6.1/linux/Makefile") $(sed -n 's/^PATCHLEVEL = //p' "$lay/build/linux/Makefile") $(git -C "$lay/build/6.1/linux" branch --list 'student/*' | tr -d ' *') $(git -C "$lay/build/linux" branch --list 'student/*' | tr -d ' *') $([ -d "$lay/build/6.1/obj" ] && echo obj)"
t_expect "... its linked worktree still works, from its new place" "base 6.1" \
	"$(git -C "$lay/build/6.1/test/linux" log -1 --format=%s 2>&1)"
t_expect "... build/KERNEL kept, build/6.12 gone, and nothing moves twice" "6.1 no" \
	"$(cat "$lay/build/KERNEL") $([ -e "$lay/build/6.12" ] && echo yes || echo no)$(cd "$lay" && env -u BUILD -u KERNEL_DIR bash -c '. scripts/lib.sh' 2>&1)"
rm -rf "$lay"
out=$(base_of KERNEL='6.1; touch /tmp/x')
t_grep "bases: an unknown KERNEL is refused, by name" "KERNEL=6.1; touch /tmp/x: the course has the bases 6.12 6.1" "$out"
t_expect "bases: each base has a BASE file naming its package" "linux-source-6.1 linux-source-6.12" \
	"$(sed -n 's/^package=//p' "$top/kernel-steps/6.1/BASE" "$top/kernel-steps/BASE" | tr '\n' ' ' | sed 's/ $//')"

# --- a fake kernel tree: branches, dirty trees, patches ------------------
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mk_fake_tree() { # DIR: a git repo shaped like the imported tree, tag distro
	mkdir -p "$1/fs" "$1/debian"
	printf 'int exec(void)\n{\n\treturn 0;\n}\n' >"$1/fs/exec.c"
	printf '/*\n!/debian/\n' >"$1/.gitignore"
	echo d >"$1/debian/changelog"
	git -C "$1" init -q
	git -C "$1" add -f -A
	git -C "$1" -c user.name=t -c user.email=t@t commit -qm distro
	git -C "$1" tag distro
	git -C "$1" config user.name student
	git -C "$1" config user.email student@localhost
}
export KERNEL_DIR=$tmp/linux STEPS_DIR=$fx/fake-steps/kernel-steps SOLUTIONS_DIR=$fx/fake-steps/solutions
export LABS_DIR=$fx/fake-steps/labs
export NO_CHECK=1 BUILD=$tmp
mk_fake_tree "$KERNEL_DIR"
g() { git -C "$KERNEL_DIR" "$@"; }

out=$("$top/scripts/apply-steps.sh" 2>&1)
t_expect "steps: tags made" "distro lab-00 lab-01-done lab-01-start" "$(g tag | tr '\n' ' ' | sed 's/ $//')"
t_expect "steps: the last solution gives back distro (identity)" \
	"$(g rev-parse 'distro^{tree}')" "$(g rev-parse 'lab-01-done^{tree}')"

out=$("$top/scripts/lab.sh" start 1 2>&1)
t_expect "lab-1: on branch student/lab-01" student/lab-01 "$(g symbolic-ref --short HEAD)"

echo "my work" >>"$KERNEL_DIR/fs/exec.c"
echo "new" >"$KERNEL_DIR/fs/mine.c"
before=$(sha1sum "$KERNEL_DIR/fs/exec.c")
out=$("$top/scripts/lab.sh" solution 1 2>&1)
rc=$?
t_expect "dirty tree: solution-1 refuses (exit 1)" 1 "$rc"
t_grep "dirty tree: says what is not committed, new files too" 'fs/mine.c' "$out"
t_grep "dirty tree: says how to save the work" 'git .* commit|stash' "$out"
t_expect "dirty tree: the change is still there" "$before" "$(sha1sum "$KERNEL_DIR/fs/exec.c")"
t_expect "dirty tree: still on the student branch" student/lab-01 "$(g symbolic-ref --short HEAD)"

g add -A && g commit -qm "my work"
mine=$(g rev-parse HEAD)
out=$("$top/scripts/lab.sh" solution 1 2>&1)
t_expect "solution-1: on branch solution/lab-01 at lab-01-done ($out)" \
	"$(g rev-parse lab-01-done)" "$(g rev-parse HEAD)"
t_grep "solution-1: says how to get back" 'back to your own work: make lab-1' "$out"
"$top/scripts/lab.sh" start 1 >/dev/null 2>&1
t_expect "lab-1 again: back on the student's own commit" "$mine" "$(g rev-parse HEAD)"

tags_before=$(g show-ref --tags)
out=$(STEPS_DIR=$fx/fake-steps/bad-steps FORCE=1 "$top/scripts/apply-steps.sh" 2>&1)
rc=$?
t_expect "bad patch: apply-steps fails" 1 "$rc"
t_grep "bad patch: the message names the patch" 'bad-steps/00-01-rewind.patch does not apply' "$out"
t_grep "bad patch: and the file" 'fs/exec.c' "$out"
t_expect "bad patch: no tag was moved" "$tags_before" "$(g show-ref --tags)"
t_expect "bad patch: the student's branch is untouched" "$mine" "$(g rev-parse student/lab-01)"

# make hint: one more hint each time, counted; the last one says so
out=$("$top/scripts/lab.sh" hint 2>&1)
t_grep "hint: the first hint of the lab the tree is on" 'hint 1 of 2' "$out"
t_expect "hint: ... and not the second yet" "" "$(printf '%s\n' "$out" | grep 'second nudge')"
out=$("$top/scripts/lab.sh" hint 2>&1)
t_grep "hint: run again, the second" 'the second nudge' "$out"
t_grep "hint: ... with the first still shown" 'the first nudge' "$out"
out=$("$top/scripts/lab.sh" hint 2>&1)
t_grep "hint: past the last, it says so" 'that was the last hint' "$out"
t_expect "hint: the count is kept" 2 "$(cat "$BUILD/hints/01")"
# make status: a row per lab, with the student's commits, the last check
# and the hints; where the tree is, in words (no git describe jargon)
mkdir -p "$tmp/logs"
printf 'KTAP version 1\n1..1\n  KTAP version 1\n  # Subtest: lab-01-fake\n  1..2\n  ok 1 a\n  not ok 2 b\nnot ok 1 lab-01-fake\n' \
	>"$tmp/logs/check-lab-01.ktap"
out=$(LOG_DIR=$tmp/logs "$top/scripts/lab.sh" status 2>&1)
t_grep "status: where the tree is, in words" 'on student/lab-01 \(lab 1 start \+ 1 commit\)' "$out"
t_grep "status: lab 1's row: on it, 1 commit, its last check, 2 of 2 hints" \
	'^  > 1 +fake +1 +FAIL 1/2 [0-9-]+ [0-9:]+ +2/2$' "$out"
t_expect "status: no git describe jargon" "" "$(printf '%s\n' "$out" | grep -E -- '-g[0-9a-f]{7}')"
echo "edit" >>"$KERNEL_DIR/fs/exec.c"
t_grep "status: uncommitted edits are counted on the row" '^  > 1 .* 1\+edits ' \
	"$(LOG_DIR=$tmp/logs "$top/scripts/lab.sh" status 2>&1)"
g checkout -q -- fs/exec.c
# a check made on another branch than student/lab-01 (make solution-1's
# is solution-lab-01.*; an older one, or LAB=1 on another lab's branch,
# says its branch beside it) is not the student's last check of lab 1
echo solution/lab-01 >"$tmp/logs/check-lab-01.branch"
t_grep "status: a check made on the reference branch is not the student's" '^  > 1 +fake +1 +- +2/2$' \
	"$(LOG_DIR=$tmp/logs "$top/scripts/lab.sh" status 2>&1)"
echo student/lab-01 >"$tmp/logs/check-lab-01.branch"
t_grep "status: ... and one made on the student's branch is" '^  > 1 +fake +1 +FAIL 1/2 ' \
	"$(LOG_DIR=$tmp/logs "$top/scripts/lab.sh" status 2>&1)"

# a lab number that is not one: named, with the command to use
t_grep "check LAB=99: there is no lab 99" 'there is no lab 99: the labs are 1 to 1' "$("$top/scripts/lab.sh" check 99 2>&1)"
t_grep "check LAB=abc: not a lab number, and how to say one" "'abc' is not a lab number .*make check LAB=" \
	"$("$top/scripts/lab.sh" check abc 2>&1)"
t_grep "make help lists LAB= for make check" 'make check .*LAB=N' "$(make -s -C "$top" help)"

# the state of the work tree as one id: an edit changes it, undoing the
# edit gives it back, a new file counts, and the real index is untouched
(
	. "$top/scripts/lib.sh"
	a=$(work_tree_id)
	t_expect "work_tree_id: a clean tree is HEAD's tree" "$(g rev-parse 'HEAD^{tree}')" "$a"
	echo x >>"$KERNEL_DIR/fs/exec.c"
	b=$(work_tree_id)
	g checkout -q -- fs/exec.c
	echo y >"$KERNEL_DIR/fs/new.c"
	c=$(work_tree_id)
	rm "$KERNEL_DIR/fs/new.c"
	t_expect "work_tree_id: an edit, a new file and the undo give three ids, the undo the first" \
		"3 $a" "$(printf '%s\n' "$a" "$b" "$c" | sort -u | wc -l) $(work_tree_id)"
	t_expect "work_tree_id: the real index is untouched" "" "$(g diff --cached --name-only)"
	# with an index of its own kept from call to call (OBJ_DIR's)
	export WORK_INDEX=$tmp/work-index
	k1=$(work_tree_id)
	echo x >>"$KERNEL_DIR/fs/exec.c"
	k2=$(work_tree_id)
	g checkout -q -- fs/exec.c
	t_expect "work_tree_id: with an index of its own, the same ids, and the index kept" "$a $b $a yes" \
		"$k1 $k2 $(work_tree_id) $([ -f "$WORK_INDEX" ] && echo yes)"
	t_expect "work_tree_id: ... and the real index untouched" "" "$(g diff --cached --name-only)"
)

out=$("$top/scripts/lab.sh" start 7 2>&1)
t_grep "no such lab: a clear error" 'there is no lab 7:' "$out"
t_expect "no such lab: no branch made" "" "$(g branch --list 'student/lab-07')"

# --- guest-side KTAP helpers ---------------------------------------------
out=$(sh -c ". '$top/guest-rootfs/lib/ktap.sh'; ktap_plan 2; expect one 'x=1*' echo x=12; expect two 'y' sh -c 'echo nope; exit 3'; ktap_done" 2>&1)
rc=$?
t_expect "guest ktap.sh: exit 1 when a point fails" 1 "$rc"
t_grep "guest ktap.sh: ok line" '^ok 1 one$' "$out"
t_grep "guest ktap.sh: not ok line with the output as diagnostics" '^# nope$' "$out"
out=$(KTAP_POINT_TIMEOUT=1 sh -c ". '$top/guest-rootfs/lib/ktap.sh'; ktap_plan 5
	slow() { sleep 30; echo never; }
	expect hangs 'never' slow; expect next 'y' echo y
	ktap_skip cannot 'no tun device here'; ktap_needs absent /nonexistent 'needs /nonexistent' || :
	expect_xfail known 'a 3.7 limit' 'works' echo broken; ktap_done" 2>&1)
rc=$?
t_grep "guest ktap.sh: a point that hangs is a TIMEOUT of its own" '^not ok 1 hangs # TIMEOUT after 1s$' "$out"
t_grep "guest ktap.sh: and the next point still runs" '^ok 2 next$' "$out"
t_grep "guest ktap.sh: SKIP with its reason" '^ok 3 cannot # SKIP no tun device here$' "$out"
t_grep "guest ktap.sh: ktap_needs skips when the file is absent" '^ok 4 absent # SKIP needs /nonexistent$' "$out"
t_grep "guest ktap.sh: XFAIL for a point known to fail" '^ok 5 known # XFAIL a 3.7 limit$' "$out"
t_grep "guest ktap.sh: each point is named before it runs" '^# running: hangs$' "$out"
t_expect "guest ktap.sh: the timed-out point fails the check" 1 "$rc"
out=$(sh -c ". '$top/guest-rootfs/lib/ktap.sh'; ktap_plan 3
	demo() { echo 'line one'; echo 'line two'; }
	if_wrong 'the set-gid bit was honoured'; expect a 'x' demo
	expect b 'y' demo; expect c 'z' echo other; ktap_done" 2>&1)
t_grep "guest ktap.sh: if_wrong says what a failure means" '^# wrong: the set-gid bit was honoured$' "$out"
t_expect "guest ktap.sh: ... for its own point only" 1 "$(printf '%s\n' "$out" | grep -c '^# wrong:')"
t_expect "guest ktap.sh: an output is shown once per check" 1 "$(printf '%s\n' "$out" | grep -c '^# line one$')"
t_grep "guest ktap.sh: ... and the later point says where it is" '^# \(the same output as point 1, above\)$' "$out"
t_grep "guest ktap.sh: ... a different output is shown" '^# other$' "$out"

unset KERNEL_DIR STEPS_DIR SOLUTIONS_DIR BUILD LABS_DIR
# --- a lab's declarations: lab.conf (its keys) and its check's points, as
# scripts/labconf.py (their one reader) sees them --------------------------
if out=$(python3 "$top/scripts/labconf.py" lint 2>&1); then
	t_ok "labconf: every lab.conf in its one form, with its keys, and every point visible to the scorer"
else
	t_fail "labconf lint" "$out"
fi

# --- the course map is generated from lab.conf ---------------------------
if diff -u "$top/labs/README.md" <("$top/scripts/course-map.sh") >/dev/null; then
	t_ok "labs/README.md is the current course map"
else
	t_fail "labs/README.md is out of date: run 'make course-map'"
fi
for d in "$top"/labs/[0-9][0-9]-*/; do
	miss=""
	for f in README.md lab.conf check; do [ -f "$d/$f" ] || miss="$miss $f"; done
	[ "$(grep -c '^## Hint ' "$d/hints.md" 2>/dev/null)" -ge 3 ] 2>/dev/null || miss="$miss hints.md(3+ hints)"
	if [ -z "$miss" ]; then t_ok "lab $(basename "$d"): README, lab.conf, check and hints"; else t_fail "lab $(basename "$d") lacks:$miss"; fi
	# every test point of the check is in the README, by its name: a
	# student reads there what each point does (a point added to a check
	# alone is one nobody documented)
	miss=""
	for p in $(python3 "$top/scripts/labconf.py" points "$d" 2>/dev/null | cut -d' ' -f1); do
		grep -qF "\`$p\`" "$d/README.md" 2>/dev/null || miss="$miss $p"
	done
	if [ -z "$miss" ]; then
		t_ok "lab $(basename "$d"): its README names every test point of its check"
	else
		t_fail "lab $(basename "$d"): the README does not name these points of its check:$miss"
	fi
done

# --- what a kernel costs make test (mutants-lib.sh, run.sh) -----------------
cost_t=$(mktemp -d)
out=$(T=$cost_t KERNEL=6.1 bash -c '
	. "$1/scripts/lib.sh" && . "$1/tests/lib.sh" && . "$1/tests/mutants-lib.sh"
	T=$2 && cost_reset
	for s in 6 8 7; do echo "build $s.0" >>"$T/costs"; echo "boot 1$s.0" >>"$T/costs"; done
	for i in $(seq 1 36); do echo "mbuild 5.0" >>"$T/costs"; echo "mboot 3.0" >>"$T/costs"; done
	t0=$(date +%s.%N) && cost_add build "$t0" && tail -1 "$T/costs" | grep -q "^build 0\.[0-9]$" && echo "cost_add: ok"
	cost_summary' _ "$top" "$cost_t" 2>&1)
t_grep "cost: a step's build and boot, medians (make test repeats these lines)" \
	'^cost: 6.1 staircase, a step: build 6 s \(median of 4\), boot with every check 17 s \(median of 3\)' "$out"
t_grep "cost: a mutant's build and boot" "^cost: 6.1 mutants, a mutant: build 5 s \\(median of 36\\), boot with its lab's check 3 s" "$out"
# (36 mutants over the course's labs: 2.0 a lab with 18 of them)
per=$(awk -v n="$(find "$top/labs" -mindepth 1 -maxdepth 1 -name '[0-9][0-9]-*' -type d | wc -l)" 'BEGIN { printf "%.1f", 36 / n }')
t_grep "cost: one more lab: its step and its share of mutants over two lanes" \
	"^cost: one more lab on 6.1: about [0-9]+ s of the staircase .* \\+ [0-9]+ s of mutants \\($per of them" "$out"
t_grep "cost: cost_add records a duration" '^cost_add: ok' "$out"
rm -rf "$cost_t"

# --- a staircase boot that ran out of time is booted once more (mutants-lib.sh)
# A stub run-qemu.sh writes a lab that timed out in its first boot and a lab
# that failed in its second; a boot without BOOT_RETRY is never repeated.
rt=$(mktemp -d)
mkdir -p "$rt/top/scripts" "$rt/T/kernels" "$rt/logs"
cp scripts/ktap.sh scripts/ktap.py "$rt/top/scripts/"
cat >"$rt/top/scripts/run-qemu.sh" <<'STUB'
#!/bin/sh
# stub: $RT/boots counts the boots; the first one's check runs out of time
log=$4
n=$(($(cat "$RT/boots" 2>/dev/null || echo 0) + 1))
echo "$n" >"$RT/boots"
if [ "$n" -eq 1 ]; then st="not ok 1 lab-14-netns-admin # TIMEOUT after 30s"; else st="not ok 1 lab-14-netns-admin # exit 1"; fi
printf 'KTAP version 1\n1..1\n  KTAP version 1\n  # Subtest: lab-14-netns-admin\n  1..1\n  not ok 1 x\n%s\n' "$st" >"${log%.log}.ktap"
echo "boot $n" >"$log"
STUB
chmod +x "$rt/top/scripts/run-qemu.sh"
retry() {
	rm -f "$rt/boots" "$rt/T/costs"
	: >"$rt/T/kernels/s.vmlinux"
	RT=$rt TOP=$rt/top T=$rt/T LOG_DIR=$rt/logs GUEST_DIR=$rt BOOT_RETRY=$1 bash -c '
		. "$1/tests/mutants-lib.sh"
		boot_bg s 14 && boot_wait
		echo "boots $(cat "$RT/boots") rc $(boot_rc s) retried [$(cat "$LOG_DIR/s.retried" 2>/dev/null)]"
		"$TOP/scripts/ktap.sh" results "$LOG_DIR/s.ktap" 14
		[ ! -f "$LOG_DIR/s.first.ktap" ] || echo "first: $("$TOP/scripts/ktap.sh" results "$LOG_DIR/s.first.ktap" 14)"' _ "$top" 2>&1
}
out=$(retry 1)
t_grep "boot retry: a TIMEOUT in the first boot boots the kernel once more" '^boots 2 rc 0 retried \[14\]$' "$out"
t_grep "boot retry: the second boot's results are the step's" '^14 FAIL 0 1$' "$out"
t_grep "boot retry: the first boot's results are kept" '^first: 14 TIMEOUT 0 1$' "$out"
out=$(retry 0)
t_grep "boot retry: without BOOT_RETRY (the mutants) a boot is not repeated" '^boots 1 rc 0 retried \[\]$' "$out"
t_grep "boot retry: ... and its TIMEOUT stands" '^14 TIMEOUT 0 1$' "$out"
rm -rf "$rt"

t_summary unit
