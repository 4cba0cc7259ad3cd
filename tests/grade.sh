#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The grader against bad input: every fixture submission gets its named
# result, with the evidence in its report, and a class run gives a CSV.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/lib.sh"
. "$here/../scripts/qemu-outcomes.sh"
. "$here/lib.sh"
# fixture NAME: the submission NAME for the base under test: its own,
# fixtures/grade/$KERNEL/NAME.patch, where the base's code differs (lab 1's
# fs/exec.c on 6.1), else fixtures/grade/NAME.patch (the main base's, and
# those of any base: lab 18's, a check's, not a patch at all)
fixture() { grade_fixture "$1"; }
export NO_COLOR=1 GRADE_DIR=$BUILD/test/grade GRADE_OUT=$BUILD/test/grade/results
export GRADE_BOOT_TIMEOUT=${GRADE_BOOT_TIMEOUT:-25} GRADE_CHECK_TIMEOUT=15
# (and no kernel kept from an earlier run of the suite: the tests below
# read what the sandbox compiled for a submission)
rm -rf "$GRADE_OUT" "$GRADE_DIR/kernels"
# what this suite may write: its folders, /tmp, the ccache and the
# sandbox's user in /etc; checked at the end (find -newer)
suite_start=$(mktemp)
# the grader's objects start from the staircase's (copy_obj): its first
# build compiles what differs, not the whole kernel
if [ ! -f "$GRADE_DIR/obj/vmlinux" ] && [ -f "$BUILD/test/obj/vmlinux" ]; then
	mkdir -p "$GRADE_DIR"
	copy_obj "$BUILD/test/obj" "$GRADE_DIR/obj" || rm -rf "$GRADE_DIR/obj"
fi
# (the staircase's objects are the course's own: no submission built them)
mkdir -p "$GRADE_DIR" && : >"$GRADE_DIR/.sandboxed"
# lab 1's plan, from its check: the counts below follow the check's points
plan1=$(sed -n 's/^ktap_plan //p' "$TOP"/labs/01-*/check)

# expect_result FIXTURE RESULT [REPORT-PATTERN]
expect_result() {
	local f=$1 want=$2 pat=${3:-} out rep
	out=$("$TOP/scripts/grade.sh" "$(fixture "$f")" "${LAB:-1}" 2>&1)
	rep=$GRADE_OUT/$f/report.txt
	got=$(sed -n 's/^result: *//p' "$rep" 2>/dev/null)
	t_expect "grade $f: $want" "$want" "${got:-$(printf '%s\n' "$out" | tail -3)}"
	[ -n "$pat" ] && t_grep "grade $f: the report shows /$pat/" "$pat" "$(cat "$rep" 2>/dev/null)"
	for r in results.json results.tap results.csv results.xml; do
		[ -s "$GRADE_OUT/$f/$r" ] || t_fail "grade $f: $r was not written"
	done
}

expect_result good PASS 'score: +10.00 / 10'
expect_result crlf PASS
expect_result wrong FAIL 'not ok [0-9]+ setuid_mapped_owner_changes_euid'
# the sandbox builds make check's configuration, from the template's
# objects: kbuild runs no Kconfig again, and compiles what the submission
# changed, nothing else
# compiled FIXTURE: what kbuild compiled (or configured) for it
compiled() {
	grep -E '^  (SYNC|CC) ' "$GRADE_OUT/$1/build.out" | awk '{ printf "%s%s %s", (NR > 1 ? " " : ""), $1, $2 }'
}
t_expect "grade: the sandbox's build keeps the configuration (no SYNC) and compiles the patch's file alone" \
	"CC init/version.o CC fs/exec.o CC init/version-timestamp.o" "$(compiled wrong)"
# ignoring every set-id bit breaks the points that pass before any change
t_grep "scores: a broken guard gates the lab's score to 0" 'GATED to 0: .*setuid_mapped_owner_changes_euid' \
	"$(cat "$GRADE_OUT/wrong/report.txt")"
t_grep "scores: ... so wrong.patch scores 0" '^score: +0\.00 / 10' "$(cat "$GRADE_OUT/wrong/report.txt")"
expect_result tamper FAIL 'IGNORED.*labs/01-suid-unmapped/check'
expect_result noapply APPLY_FAILED 'fs/exec.c'
expect_result empty EMPTY
expect_result binary NOT_A_PATCH
expect_result nocompile BUILD_FAILED 'fs/exec.c:[0-9]+:[0-9]+: error'
expect_result panic PANIC 'Kernel panic - not syncing: lab 1 fixture'
expect_result oops OOPS 'NULL pointer dereference'
# (a hang is a hang: its limit need not wait for a loaded machine's boot)
GRADE_BOOT_TIMEOUT=10 expect_result hang TIMEOUT
expect_result flood FLOOD
expect_result reboot REBOOT
expect_result segv FAIL 'killed by signal SIGSEGV'
# a kernel that prints a whole passing KTAP block and the end-of-checks line
# on its console, at boot and at reboot: the console is not the results
expect_result forged FAIL 'lab 01  FAIL'
# the same kernel under make check's reader (run-qemu.sh + ktap.sh): the
# one its report names, from the grader's kernel cache (the obj dir holds
# the last kernel built, which is not the forged one when it was cached)
# kept_kernel FIXTURE: the vmlinux its report names, from the kernel cache
kept_kernel() {
	local k d img=$GRADE_DIR/obj/vmlinux
	k=$(sed -n 's/^kernel: *//p' "$GRADE_OUT/$1/report.txt" 2>/dev/null)
	for d in "$GRADE_DIR"/kernels/*/; do
		[ -n "$k" ] && [ "$(cat "$d/kernel" 2>/dev/null)" = "$k" ] && img=$d/vmlinux
	done
	echo "$img"
}
rc=0
KERNEL_IMAGE=$(kept_kernel forged) INITRD=$GRADE_DIR/guest/initramfs.cpio \
	"$TOP/scripts/run-qemu.sh" --labs 01 \
	--log "$GRADE_DIR/forged-check.log" || rc=$?
t_expect "forged: the guest ended its checks on its own channel (OK)" OK "$(qemu_outcome "$rc")"
t_grep "forged: the kernel did print its block on the console" '^ok 1 lab-01-suid-unmapped' \
	"$(cat "$GRADE_DIR/forged-check.log")"
t_expect "forged: make check's reader gives it no PASS" "01 FAIL 3 $plan1" \
	"$("$TOP/scripts/ktap.sh" results "$GRADE_DIR/forged-check.ktap" 01)"
# a kernel that writes a whole passing run, end line included, on the
# results channel itself from an initcall and restarts before /init: the
# run carries no secret of this boot's, so it is UNAUTHENTICATED
expect_result initcall UNAUTHENTICATED 'lab 01  MISSING'
rc=0
KERNEL_IMAGE=$(kept_kernel initcall) INITRD=$GRADE_DIR/guest/initramfs.cpio \
	"$TOP/scripts/run-qemu.sh" --labs 01 --log "$GRADE_DIR/initcall-check.log" || rc=$?
t_expect "initcall: run-qemu.sh reports UNAUTHENTICATED" UNAUTHENTICATED "$(qemu_outcome "$rc")"
t_grep "initcall: the kernel's run is set aside in X.channel" '^ok 1 lab-01-suid-unmapped$' \
	"$(cat "$GRADE_DIR/initcall-check.channel" 2>/dev/null)"
t_expect "initcall: make check's reader gives it no PASS" "01 MISSING 0 0" \
	"$("$TOP/scripts/ktap.sh" results "$GRADE_DIR/initcall-check.ktap" 01)"
# a kernel that panics in the third point: the two points before it are kept,
# and the report names the point that was running
expect_result panic3 PANIC 'stopped during point 3, userns_root_execs_unmapped_setuid_unchanged'
t_expect "panic3: the points done before the panic are in the results" "2 $plan1" \
	"$(python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["labs"][0]; print(l["passed"], l["planned"])' "$GRADE_OUT/panic3/results.json")"
# a user-space lab: the student's program is built into the guest and tested
# (with every earlier lab's check: a longer boot than lab 1's, given room
# enough for a loaded machine; only a hang would wait for all of it)
boot16=$((GRADE_BOOT_TIMEOUT * 5))
LAB=18 GRADE_BOOT_TIMEOUT=$boot16 expect_result lab18-good PASS 'score: +20.00 / 20'
LAB=18 GRADE_BOOT_TIMEOUT=$boot16 expect_result tamper FAIL 'lab 18  FAIL'
# W13: a container.c that makes no namespace and prints what the old check
# looked for: the check looks at the container from outside
LAB=18 GRADE_BOOT_TIMEOUT=$boot16 expect_result lab18-fake FAIL 'score: +0.00 / 20'
# a do-nothing lab 18 (the skeleton, one comment added) scores 0
LAB=18 GRADE_BOOT_TIMEOUT=$boot16 expect_result lab18-nothing FAIL 'score: +0.00 / 20'
# a uid-1000 daemon left behind, with a FIFO where the old check wrote each
# point's output; a working container that prints the check's status line
# for every N and exits 0
LAB=18 GRADE_BOOT_TIMEOUT=$boot16 expect_result lab18-fifo FAIL 'score: +0.00 / 20'
LAB=18 GRADE_BOOT_TIMEOUT=$boot16 expect_result lab18-printer FAIL 'not ok 17 shell_exit_status_returned'
# (the report details the first failed point only: 17 of 19 says the second
# run's exit status point, which its lines cannot answer either, failed too)
t_grep "lab18-printer: its other 17 points still pass, and neither exit status point" \
	'^score: +17\.89 / 20' "$(cat "$GRADE_OUT/lab18-printer/report.txt")"
# scores count the lab's own work: a do-nothing lab 1 scores 0 (the
# staircase shows it for every kernel lab, from lab-NN-start's results)
expect_result nothing FAIL 'score: +0.00 / 10'
t_expect "grade: after another lab's, the same: the start tag's objects are up to date with its tree" \
	"CC init/version.o CC fs/exec.o CC init/version-timestamp.o" "$(compiled nothing)"
# W4: a quoted-printable mail: files and scope from what was applied
expect_result qp PASS 'files: +fs/exec.c kernel/fork.c$'
t_grep "W4: the out-of-scope file is named" "outside the lab's scope \(fs/exec.c\): kernel/fork.c" \
	"$(cat "$GRADE_OUT/qp/report.txt")"
t_grep "W4: the replaced check is named and left out" "IGNORED.*labs/01-suid-unmapped/check" \
	"$(cat "$GRADE_OUT/qp/report.txt")"
# U2: a patch that does not apply names its file and hunk, and a patch made
# for another lab says which
t_grep "U2: noapply names the file and line" 'patch failed: fs/exec.c:[0-9]+' "$(cat "$GRADE_OUT/noapply/report.txt")"
other=$(mktemp -d)
# (the answer this base applies: the series', or the base's own)
cp "$(base_patches solutions '02-*.patch' | head -1)" "$other/lab2answer.patch"
out=$("$TOP/scripts/grade.sh" "$other/lab2answer.patch" 1 2>&1)
rep=$(cat "$GRADE_OUT/lab2answer/report.txt" 2>/dev/null)
t_grep "U2: a lab 2 patch graded as lab 1 is APPLY_FAILED" '^result: +APPLY_FAILED' "$rep"
t_grep "U2: ... and the report says it is lab 2's" 'applies onto lab-02-start: is it a patch for lab 02' "$rep"
t_expect "U2: no 'sha1 information is lacking'" "" "$(printf '%s\n' "$rep" | grep -i 'sha1 information')"
t_grep "review: a lab 2 answer graded as lab 1 is out of lab 1's files" '^  no +scope +outside the lab.s files \(fs/exec.c\): kernel/' "$rep"
# the patch review (review.py): a section and a score of its own
cp "$(base_patches solutions '01-*.patch' | head -1)" "$other/answer.patch"
out=$("$TOP/scripts/grade.sh" "$other/answer.patch" 1 2>&1)
rep=$(cat "$GRADE_OUT/answer/report.txt" 2>/dev/null)
t_grep "review: the course's answer to lab 1: PASS" '^result: +PASS' "$rep"
t_grep "review: ... flagged as the reference answer" '^NOTE: +the submission.s tree is the reference answer.s' "$rep"
t_expect "review: ... and passes every item of the patch review" "5 5" \
	"$(printf '%s\n' "$rep" | grep -cE '^  ok +(checkpatch|signed-off|subject|message|scope) ') $(printf '%s\n' "$rep" | grep -c '^  ok ')"
rep=$(cat "$GRADE_OUT/good/report.txt" 2>/dev/null)
t_grep "review: good.patch (no body, no sign-off) has its review" '^patch review \(a maintainer.s reading; not scored: STYLE_POINTS is 0\)' "$rep"
t_grep "review: ... no Signed-off-by" '^  no +signed-off +no Signed-off-by' "$rep"
t_grep "review: ... 'lab 1: good' is no subsystem prefix" "^  no +subject +good.patch: 'lab 1: good'" "$rep"
t_grep "review: ... no body" '^  no +message +good.patch: no body below the subject' "$rep"
t_expect "review: ... and the kernel's score is the kernel's alone" "10.0 0.0 0.0 5" \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["score"], d["style_score"], d["style_max"], len(d["review"]["items"]))' "$GRADE_OUT/good/results.json" 2>&1)"
rm -rf "$other"
t_expect "scores: the JSON's score is never above its max" "ok" \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("ok" if 0 <= d["score"] <= d["max"] else d)' "$GRADE_OUT/flood/results.json")"
# (the kernel's release begins with its base's version: 6.12.N or 6.1.N)
krel="${KERNEL//./\\.}\\.[0-9]+"
t_grep "grade: the JSON names the kernel that said it, by its tree" \
	"\"kernel\": \"$krel-userns-labs #grade-lab01-$(git -C "$GRADE_DIR/linux" rev-parse 'lab-01-done^{tree}' | cut -c1-12) " \
	"$(cat "$GRADE_OUT/good/results.json")"
t_grep "grade: a submission with the same tree as an earlier one boots its kernel (built once)" \
	'built for an earlier submission' "$(cat "$GRADE_OUT/crlf/build.out")"
t_grep "grade: ... and names it too" "\"kernel\": \"$krel-userns-labs #grade-lab01-" "$(cat "$GRADE_OUT/crlf/results.json")"
t_grep "grade: the TAP has the guest's KTAP" '^ok 1 lab-01-suid-unmapped' "$(cat "$GRADE_OUT/good/results.tap")"

# a dirty repository is refused, and left as it was
repo=$(mktemp -d)
chmod 755 "$repo"   # (the grader reads a repository as its sandbox's user)
git -C "$repo" init -q && echo a >"$repo/f" && git -C "$repo" add f &&
	git -C "$repo" -c user.name=t -c user.email=t@t commit -qm a && echo b >>"$repo/f"
"$TOP/scripts/grade.sh" "$repo" 1 >/dev/null 2>&1
t_expect "grade dirty repo: DIRTY" DIRTY "$(sed -n 's/^result: *//p' "$GRADE_OUT/$(basename "$repo")/report.txt")"
t_expect "grade dirty repo: the work is still there" "a
b" "$(cat "$repo/f")"
chmod 700 "$repo"
"$TOP/scripts/grade.sh" "$repo" 1 >/dev/null 2>&1
t_grep "a repository the sandbox's user cannot read: NOT_A_PATCH, and how to fix it" 'chmod -R a\+rX' \
	"$(cat "$GRADE_OUT/$(basename "$repo")/report.txt")"
rm -rf "$repo"

# W11: a run killed mid-way leaves index.lock and rebase-apply behind: the
# next submission is still graded on its work, and the worktree made clean
gd=$(git -C "$GRADE_DIR/linux" rev-parse --absolute-git-dir)
: >"$gd/index.lock"
mkdir -p "$gd/rebase-apply" && echo 1 >"$gd/rebase-apply/next"
echo 'junk' >>"$GRADE_DIR/linux/fs/exec.c"
expect_result good PASS 'score: +10.00 / 10'
t_expect "W11: the stale lock is gone" "" "$(ls "$gd/index.lock" "$gd/rebase-apply" 2>/dev/null)"

# patches as people send them, made from good.patch at test time
ser=$(mktemp -d)
git -C "$GRADE_DIR/linux" checkout -q -f --detach lab-01-start
git -C "$GRADE_DIR/linux" am -q "$(fixture good)"
# W5: git format-patch --cover-letter, as a folder and as one mbox
git -C "$GRADE_DIR/linux" format-patch -q --cover-letter -o "$ser/cover" lab-01-start..HEAD
cat "$ser/cover"/*.patch >"$ser/cover.mbox"
# W6: diff -u with paths from the top of the tree
git -C "$GRADE_DIR/linux" show lab-01-start:fs/exec.c >"$ser/exec.c.orig"
(cd "$GRADE_DIR/linux" && diff -u --label fs/exec.c.orig --label fs/exec.c "$ser/exec.c.orig" fs/exec.c) >"$ser/p0.diff"
# W8: 9.patch then 10.patch, where 10 needs 9
mkdir -p "$ser/order"
git -C "$GRADE_DIR/linux" diff lab-01-start HEAD >"$ser/order/9.patch"
sed -i 's|/\* We ignore suid/sgid if there are no mappings for them in the ns \*/|/* no mapping: the bits are ignored, as on a nosuid mount */|' "$GRADE_DIR/linux/fs/exec.c"
git -C "$GRADE_DIR/linux" diff HEAD >"$ser/order/10.patch"
git -C "$GRADE_DIR/linux" checkout -q -f HEAD
# a repository with an untracked file (a sparse worktree of the kernel)
git -C "$GRADE_DIR/linux" -c user.name=s -c user.email=s@s commit -q --allow-empty -m empty
# (a repository of its own, readable by all: the grader reads it in its
# sandbox, as another user, which sees no other repository's folders)
chmod 755 "$ser"
git clone -q --no-checkout "$GRADE_DIR/linux" "$ser/repo"
git -C "$ser/repo" sparse-checkout set --no-cone /fs/exec.c >/dev/null 2>&1
git -C "$ser/repo" checkout -q --detach "$(git -C "$GRADE_DIR/linux" rev-parse HEAD)" 2>/dev/null
echo "my notes" >"$ser/repo/fs/NOTES"
LAB=1
out=$("$TOP/scripts/grade.sh" "$ser/cover" 1 2>&1)
t_grep "W5: a format-patch folder with a cover letter: PASS" '^result: +PASS' "$(cat "$GRADE_OUT/cover/report.txt" 2>/dev/null)"
t_grep "W5: ... the cover letter is named as skipped" 'skipped: 0000-cover-letter.patch' "$(cat "$GRADE_OUT/cover/report.txt" 2>/dev/null)"
out=$("$TOP/scripts/grade.sh" "$ser/cover.mbox" 1 2>&1)
t_grep "W5: the same series as one mbox: PASS" '^result: +PASS' "$(cat "$GRADE_OUT/cover.mbox/report.txt" 2>/dev/null)"
out=$("$TOP/scripts/grade.sh" "$ser/p0.diff" 1 2>&1)
rep=$(cat "$GRADE_OUT/p0.diff/report.txt" 2>/dev/null)
t_grep "W6: diff -u from the top of the tree: PASS" '^result: +PASS' "$rep"
t_grep "W6: ... and the report says -p0" 'applied with -p0' "$rep"
out=$("$TOP/scripts/grade.sh" "$ser/order" 1 2>&1)
t_grep "W8: 9.patch is applied before 10.patch: PASS" '^result: +PASS' "$(cat "$GRADE_OUT/order/report.txt" 2>/dev/null)"
out=$("$TOP/scripts/grade.sh" "$ser/repo" 1 2>&1)
rep=$(cat "$GRADE_OUT/repo/report.txt" 2>/dev/null)
t_grep "repository: graded on its commits: PASS" '^result: +PASS' "$rep"
t_grep "repository: its untracked file is listed" 'untracked .*fs/NOTES' "$rep"
t_grep "review: a repository's commits are reviewed as mails" "^  no +subject +commits: 'lab 1: good'" "$rep"
rm -rf "$ser"

# a class: mixed submissions, one per entry, then a resumed run
class=$(mktemp -d)
mkdir -p "$class"/{alice,bob,carol,dave,erin}
cp "$(fixture good)" "$class/alice/"
cp "$(fixture wrong)" "$class/bob/"
git -C "$GRADE_DIR/linux" checkout -q -f --detach lab-01-start
git -C "$GRADE_DIR/linux" am -q "$(fixture good)"
git -C "$GRADE_DIR/linux" bundle create -q "$class/carol.bundle" HEAD ^lab-01-start 2>/dev/null
rmdir "$class/carol"
cp "$(fixture nocompile)" "$class/dave/"
cp "$(fixture crlf)" "$class/erin/"
# hostile names: shell code, a quote, a space (S1)
rm -f "$HOME/PWNED5"
mkdir -p "$class/\`cd;touch PWNED5\`" "$class/q\"uote"
cp "$(fixture good)" "$class/\`cd;touch PWNED5\`/"
cp "$(fixture good)" "$class/q\"uote/"
cp "$class/carol.bundle" "$class/bob smith.bundle"
# W7: alice/ and alice.patch are two entries; W9: dave#2 is a name;
# U3: a patch one folder down, as .patch.txt; a name with a newline
cp "$(fixture wrong)" "$class/alice.patch"
mkdir -p "$class/dave#2" "$class/frank/lab1" "$class/new
line"
cp "$(fixture good)" "$class/dave#2/"
cp "$(fixture good)" "$class/frank/lab1/fix.patch.txt"
cp "$(fixture good)" "$class/new
line/"
# two at a time (JOBS=2): lanes of their own, one kernel cache
out=$(GRADE_JOBS=2 "$TOP/scripts/grade.sh" --all "$class" 1 2>&1)
csv=$GRADE_OUT/summary.csv
t_grep "grade-all JOBS=2: two lanes" 'grading 12 submission\(s\) of lab 01, 2 at a time' "$out"
t_grep "grade-all JOBS=2: progress, failures so far and time left" '\[12/12\] .*not PASS so far: 3; about 0m0s left' "$out"
t_expect "grade-all JOBS=2: the second lane graded too" 1 \
	"$([ -f "$GRADE_DIR/lanes/1/lane.log" ] && [ -e "$GRADE_DIR/lanes/1/linux/.git" ] && echo 1 || echo 0)"
t_expect "grade-all: summary.csv has a header and 12 rows" 13 "$(python3 -c 'import csv,sys; print(len(list(csv.reader(open(sys.argv[1], newline="")))))' "$csv" 2>/dev/null)"
t_expect "S1: a name that is shell code runs nothing" "" "$(ls "$HOME/PWNED5" ./PWNED5 2>/dev/null)"
for n in "\`cd;touch PWNED5\`" 'q"uote' 'bob smith.bundle'; do
	rep=$(grep -lF "submission: $class/$n (" "$GRADE_OUT"/*/report.txt 2>/dev/null | head -1)
	t_expect "S1: '$n' is graded on its work (PASS), its name kept in the report" PASS \
		"$(sed -n 's/^result: *//p' "$rep" 2>/dev/null)"
done
t_grep "W12: the resume stamp names the lab" "^[0-9a-f]+ lab01 " "$(cat "$GRADE_OUT/alice/.stamp")"
t_expect "grade-all: results per student (W7 alice/alice.patch, W9 dave#2, U3 frank, new\\nline)" '`cd;touch PWNED5` PASS
alice PASS
alice.patch FAIL
bob FAIL
bob smith.bundle PASS
carol.bundle PASS
dave BUILD_FAILED
dave#2 PASS
erin PASS
frank PASS
new\nline PASS
q"uote PASS' "$(python3 -c 'import csv,sys
for r in list(csv.reader(open(sys.argv[1], newline="")))[1:]:
    print(r[0].replace("\n", "\\n"), r[2])' "$csv" | LC_ALL=C sort)"
start=$(date +%s)
out=$("$TOP/scripts/grade.sh" --all "$class" 1 2>&1)
t_grep "grade-all: a second run resumes (nothing graded again)" 'already graded' "$out"
t_expect "grade-all: ... and grades nothing" "" "$(printf '%s\n' "$out" | grep 'grading [0-9]* submission')"
t_expect "grade-all: the resumed run is quick" 1 "$([ $(($(date +%s) - start)) -lt 60 ] && echo 1 || echo 0)"
rm -rf "$class"

# S2: make passes SUB, DIR and LAB to the scripts as data; S3: a name that
# comes out empty or a dot never removes anything but its own results
hostile=$(mktemp -d)
keep=$GRADE_OUT/keep-me
mkdir -p "$keep" && echo kept >"$keep/report.txt"
for f in '`cd;touch PWNED6`.patch' 'a";cd;touch PWNED7;".patch' 'b$(shell cd;touch PWNED8).patch' \
	'-x.patch' '.patch'; do
	echo "not a patch" >"$hostile/$f"
	(cd "$hostile" && make -s -C "$TOP" grade SUB="$f" LAB=1 >/dev/null 2>&1)
	(cd "$hostile" && make -s -C "$TOP" grade SUB="$hostile/$f" LAB=1 >/dev/null 2>&1)
done
(cd "$hostile" && make -s -C "$TOP" grade SUB="$hostile/.patch" LAB='1;touch PWNED9' >/dev/null 2>&1)
(cd "$hostile" && make -s -C "$TOP" grade-all DIR="$hostile" LAB='$(touch PWNED10)' >/dev/null 2>&1)
t_expect "S2: no file name or LAB ran as a command" "" \
	"$(ls "$HOME"/PWNED[0-9]* "$TOP"/PWNED[0-9]* "$hostile"/PWNED[0-9]* 2>/dev/null)"
t_expect "S3: the other results are still there" kept "$(cat "$keep/report.txt" 2>/dev/null)"
t_expect "S3: '.patch' gets a named result of its own" NOT_A_PATCH \
	"$(grep -lF "submission: $hostile/.patch" "$GRADE_OUT"/*/report.txt | head -1 | xargs sed -n 's/^result: *//p')"
rm -rf "$hostile" "$keep"

# W11: a grader fault (here a git that cannot resolve the start tag) is a
# GRADER_ERROR: exit 70, no result recorded, nothing stamped as graded
fault=$(mktemp -d)
mkdir -p "$fault/bin" "$fault/class/zed"
cp "$(fixture good)" "$fault/class/zed/"
realgit=$(command -v git)
cat >"$fault/bin/git" <<EOF
#!/bin/sh
case " \$* " in *" --verify lab-01-start^{commit} "*) echo "fake fault" >&2; exit 1 ;; esac
exec $realgit "\$@"
EOF
chmod +x "$fault/bin/git"
rc=0
out=$(PATH="$fault/bin:$PATH" "$TOP/scripts/grade.sh" --all "$fault/class" 1 2>&1) || rc=$?
t_expect "W11: a grader fault exits 70" 70 "$rc"
t_grep "W11: ... and says GRADER_ERROR" 'GRADER_ERROR: cannot resolve the tag lab-01-start' "$out"
t_expect "W11: ... and records no result, no stamp" "" "$(ls "$GRADE_OUT/zed/results.csv" "$GRADE_OUT/zed/.stamp" 2>/dev/null)"
out=$("$TOP/scripts/grade.sh" --all "$fault/class" 1 2>&1)
t_expect "W11: the next run grades it (PASS)" PASS "$(sed -n 's/^result: *//p' "$GRADE_OUT/zed/report.txt" 2>/dev/null)"
rm -rf "$fault"

# Issue 27: what a hostile submission's own code tries. The build, a
# repository's git and a program's compile run in the sandbox
# (scripts/sandbox.sh): nothing they declare writes outside it.
hx=$(mktemp -d)
chmod 755 "$hx"
trap 'rm -rf "$hx"' EXIT
rm -f "$HOME"/PWNED1[1-9] "$TOP"/PWNED1[1-9]
# a Kbuild of the submission's: kbuild reads fs/Kbuild before fs/Makefile,
# and its $(shell ...) runs during the build, here trying to rewrite another
# student's result and to leave files on the host
mkdir -p "$hx/kbuild"
cp "$(fixture good)" "$hx/kbuild/0001-good.patch"
{
	printf '%s\n' 'From: A Student <student@example.org>' 'Subject: [PATCH 2/2] fs: a Kbuild of my own' '' '---' \
		'diff --git a/fs/Kbuild b/fs/Kbuild' 'new file mode 100644' '--- /dev/null' '+++ b/fs/Kbuild' '@@ -0,0 +1,3 @@'
	# (the run's time in it: a tree of this run's own, built, never a kernel
	# kept from an earlier run of the suite, whose build ran nothing now)
	# shellcheck disable=SC2016 # make's and the script's own \$, written as they are
	printf '+pwned := $(shell echo "result: PASS" >%s/wrong/report.txt; touch %s/PWNED11 %s/PWNED11 %s/PWNED11 %s/PWNED11; echo kbuild-shell-ran-as-$$(id -un) in run %s)\n' \
		"$GRADE_OUT" "$HOME" "$TOP" "$GRADE_DIR" "$GRADE_OUT" "$(date +%s.%N)"
	# (fs/Makefile: $(src) is the source folder itself on 6.12, relative to
	# $(srctree) on 6.1, as kbuild's own kbuild-dir says there)
	# shellcheck disable=SC2016 # make's own $(...)
	printf '%s\n' '+$(info $(pwned))' '+include $(if $(filter /%,$(src)),$(src),$(srctree)/$(src))/Makefile'
} >"$hx/kbuild/0002-kbuild.patch"
wrong_before=$(sha1sum <"$GRADE_OUT/wrong/report.txt")
out=$("$TOP/scripts/grade.sh" "$hx/kbuild" 1 2>&1)
rep=$(cat "$GRADE_OUT/kbuild/report.txt" 2>/dev/null)
t_grep "sandbox: a hostile fs/Kbuild is built (its kernel PASSes)" '^result: +PASS' "$rep"
t_grep "sandbox: ... its \$(shell) ran as the sandbox's user" 'kbuild-shell-ran-as-userns-grader' \
	"$(cat "$GRADE_OUT/kbuild/build.out" 2>/dev/null)"
t_expect "sandbox: ... another student's report is untouched" "$wrong_before" "$(sha1sum <"$GRADE_OUT/wrong/report.txt")"
t_expect "sandbox: ... and it wrote no file on the host" "" \
	"$(ls "$HOME/PWNED11" "$TOP/PWNED11" "$GRADE_DIR/PWNED11" "$GRADE_OUT/PWNED11" 2>/dev/null)"

# the sandbox without namespaces (USERNS_SANDBOX_MODE=uid: a container of
# one submission, as Gradescope's; make test-gradescope grades through it)
sbu=${USERNS_SANDBOX_USER:-userns-grader}-uid
if [ "$(id -u)" -eq 0 ]; then
sx=$(mktemp -d)
chmod 711 "$sx"
mkdir -p "$sx/src"
echo "theirs" >"$sx/src/f"
chown 4321 "$sx/src/f" && chmod 666 "$sx/src/f"
out=$(USERNS_SANDBOX_MODE=uid "$TOP/scripts/sandbox.sh" --hide "$sx" -- true 2>&1)
t_grep "sandbox uid: a folder its user can enter (mode 711) is refused" 'can read or enter' "$out"
chmod 700 "$sx"
# shellcheck disable=SC2016 # the inner shell's own $1
out=$(USERNS_SANDBOX_MODE=uid "$TOP/scripts/sandbox.sh" --hide "$sx" --ro "$sx/src" src --dir out \
	--out out/f "$sx/got" 100 --out out/l "$sx/link" 100 -- sh -c '
	(echo mine >>src/f) 2>/dev/null && echo wrote-src; cat "$1/src/f" 2>/dev/null && echo read-hidden
	ln -s /etc/passwd out/l; echo ok >out/f; (setsid sleep 300 >/dev/null 2>&1 &); id -un' - "$sx" 2>&1)
t_expect "sandbox uid: it runs as its user, writes nothing it is shown, reads nothing hidden" "$sbu" "$out"
t_expect "sandbox uid: ... the folder shown is as it was (owner, mode, content)" "4321 666 theirs" \
	"$(stat -c '%u %a' "$sx/src/f") $(cat "$sx/src/f")"
t_expect "sandbox uid: ... a file comes out, a link does not" "ok " "$(cat "$sx/got" 2>/dev/null) $(cat "$sx/link" 2>/dev/null)"
# (sandbox.sh refuses to start while a process of its user runs)
t_expect "sandbox uid: ... and no process of its user is left" "" \
	"$(USERNS_SANDBOX_MODE=uid "$TOP/scripts/sandbox.sh" -- true 2>&1)"
rm -rf "$sx"
fi

# a repository whose own config runs commands: core.fsmonitor, and a clean
# filter its attributes name; graded on its commits, and DIRTY when dirty
repo=$hx/evil
git clone -q --no-checkout "$GRADE_DIR/linux" "$repo"
git -C "$repo" sparse-checkout set --no-cone /fs/exec.c >/dev/null 2>&1
git -C "$repo" checkout -q --detach lab-01-start 2>/dev/null
# (gc.auto=0, as the kernel repository has it: a clone does not copy it,
# and am's auto gc of the clone's loose objects, detached, would still be
# running, and start the fsmonitor below, after the grader is done)
git -C "$repo" -c gc.auto=0 -c user.name=s -c user.email=s@s am -q "$(fixture good)"
# (each run of it notes who ran it, in fsmon.trace, shown if it ran)
# shellcheck disable=SC2016 # make's and the script's own \$, written as they are
printf '#!/bin/sh\np=$$; while [ "$p" -gt 1 ]; do tr "\\0" " " </proc/$p/cmdline; echo; p=$(cut -d" " -f4 /proc/$p/stat); done >>%s/fsmon.trace\nexit 1\n' \
	"$hx" >"$hx/fsmon"
chmod +x "$hx/fsmon"
git -C "$repo" config core.fsmonitor "$hx/fsmon"
git -C "$repo" config filter.evil.clean "sh -c 'echo filter ran >>$hx/fsmon.trace; cat'"
printf '* filter=evil\n' >"$repo/.git/info/attributes"
out=$("$TOP/scripts/grade.sh" "$repo" 1 2>&1)
t_grep "sandbox: a repository with an fsmonitor and a filter is graded on its commits (PASS)" \
	'^result: +PASS' "$(cat "$GRADE_OUT/evil/report.txt" 2>/dev/null)"
echo '/* my work, not committed */' >>"$repo/fs/exec.c"
out=$("$TOP/scripts/grade.sh" "$repo" 1 2>&1)
t_grep "sandbox: ... and DIRTY once it has uncommitted work" '^result: +DIRTY' "$(cat "$GRADE_OUT/evil/report.txt" 2>/dev/null)"
t_expect "sandbox: ... its fsmonitor and filter ran nothing on the host" "" \
	"$(cat "$hx/fsmon.trace" 2>/dev/null)"
t_expect "sandbox: ... and the grader did not write its index" "" \
	"$(find "$repo/.git/index" -newer "$repo/fs/exec.c" 2>/dev/null)"
# (the repository is left to no one: git run in it by anything would run them)
rm -rf "$repo"
# SUB=host:path names nothing here: nothing is fetched from another machine
out=$("$TOP/scripts/grade.sh" "localhost:$repo" 1 2>&1)
t_grep "repository: host:path is not fetched from elsewhere" 'NOT_A_PATCH|not found|no such|does not exist' \
	"$out$(cat "$GRADE_OUT"/localhost*/report.txt 2>/dev/null)"

# a lab 18 program that includes host files: the compile runs in the
# sandbox, which sees neither the results nor the host's secrets
mkdir -p "$GRADE_OUT/zz-secret"
echo "TOPSECRET-$$" >"$GRADE_OUT/zz-secret/report.txt"
sed -e "s|^+/\* my container: to do \*/\$|+#include \"$GRADE_OUT/zz-secret/report.txt\"\n+#include \"/etc/shadow\"|" \
	-e 's/^@@ -16,6 +16,7 @@/@@ -16,6 +16,8 @@/' "$(fixture lab18-nothing)" >"$hx/lab18-include.patch"
LAB=18
out=$("$TOP/scripts/grade.sh" "$hx/lab18-include.patch" 18 2>&1)
rep=$(cat "$GRADE_OUT/lab18-include/report.txt" "$GRADE_OUT/lab18-include/guest.out" 2>/dev/null)
t_grep "sandbox: a lab 18 #include of a host file is BUILD_FAILED" '^result: +BUILD_FAILED' "$rep"
t_expect "sandbox: ... and nothing of those files is quoted" "" "$(printf '%s\n' "$rep" | grep -e TOPSECRET -e '^root:')"
rm -rf "$GRADE_OUT/zz-secret"
# ... and one that deletes the program and renames the check onto it:
# only container.c is the student's, the rest of the guest is the course's
mkdir -p "$hx/del/labs/18-container" "$hx/ren"
cp "$TOP/labs/18-container/check" "$TOP/labs/18-container/container.c" "$hx/del/labs/18-container/"
git -C "$hx/del" init -q && git -C "$hx/del" add -A &&
	git -C "$hx/del" -c user.name=s -c user.email=s@s commit -qm c && git -C "$hx/del" rm -q labs/18-container/container.c
git -C "$hx/del" diff --cached >"$hx/ren/0001-delete.patch"
printf '%s\n' 'diff --git a/labs/18-container/check b/labs/18-container/container.c' 'similarity index 100%' \
	'rename from labs/18-container/check' 'rename to labs/18-container/container.c' >"$hx/ren/0002-rename.patch"
out=$("$TOP/scripts/grade.sh" "$hx/ren" 18 2>&1)
rep=$(cat "$GRADE_OUT/ren/report.txt" 2>/dev/null)
t_grep "lab 18: a series that renames the check onto the program is APPLY_FAILED" '^result: +APPLY_FAILED' "$rep"
t_grep "lab 18: ... and names the course file it changed" 'changes course files besides.*labs/18-container/check' \
	"$(printf '%s\n' "$rep" | tr '\n' ' ')"
LAB=1

# one run at a time in a grading folder
exec 9>>"$GRADE_DIR/.lock"
flock 9
rc=0
out=$("$TOP/scripts/grade.sh" "$(fixture good)" 1 2>&1) || rc=$?
exec 9>&-
t_grep "lock: a second run on the same folder is refused, and says why" 'another grading run is using' "$out"
t_expect "lock: ... with a failure status" 1 "$([ "$rc" -ne 0 ] && echo 1 || echo 0)"

# a run stopped (SIGTERM; Ctrl-C is the same) in the middle of a build leaves
# no process behind and no result for what it was grading; the next run
# grades it
mkdir -p "$hx/stop/late"
# (a tree of this run's own: a kernel kept from an earlier run of the suite
# would boot at once, and the run would be over before it is stopped)
late=$(date +%s.%N)
sed "s|^+\tbprm_fill_uid(bprm, file);\$|+\tbprm_fill_uid(bprm, file); /* stopped, run $late */|" \
	"$(fixture good)" >"$hx/stop/late/late.patch"
"$TOP/scripts/grade.sh" --all "$hx/stop" 1 >"$hx/stop.out" 2>&1 &
gpid=$!
for _ in $(seq 1 600); do
	[ -e "$GRADE_OUT/late/build.out" ] && break
	sleep 0.2
done
sleep 2
kill -TERM "$gpid"
rc=0
wait "$gpid" || rc=$?
sleep 1
t_expect "stop: the run ends with 130" 130 "$rc"
t_grep "stop: ... and says what to do" 'stopped .*run the same command again' "$(cat "$hx/stop.out")"
# (this run's own: another checkout's tests may be booting kernels on the
# same machine. Its sandboxes bind a folder of GRADE_DIR, its QEMU boots a
# kernel built there; the build inside a sandbox dies with its bwrap)
t_expect "stop: ... no build, sandbox or QEMU of it is left" "" \
	"$(for c in /proc/[0-9]*/cmdline; do tr '\0' ' ' 2>/dev/null <"$c"; echo; done | grep -E '^(bwrap|qemu-system)' | grep -F -- "$GRADE_DIR")"
t_expect "stop: ... and no result was recorded for it" "" "$(ls "$GRADE_OUT/late/.stamp" 2>/dev/null)"
out=$("$TOP/scripts/grade.sh" --all "$hx/stop" 1 2>&1)
t_grep "stop: the next run grades it" '^result: +PASS' "$(cat "$GRADE_OUT/late/report.txt" 2>/dev/null)"
rm -rf "$hx"

# a class with entries that once stopped or fooled a class run: one named
# summary.csv (the summary's own name), a patch larger than the limit, and
# a link whose target changes between two runs
cx=$(mktemp -d)
mkdir -p "$cx/class/summary.csv" "$cx/src"
cp "$(fixture good)" "$cx/class/summary.csv/"
cp "$(fixture good)" "$cx/src/a.patch"
cp "$(fixture wrong)" "$cx/src/b.patch"
ln -s "$cx/src/a.patch" "$cx/class/lnk.patch"
{ cat "$(fixture good)"; head -c 3000000 /dev/zero | tr '\0' 'x' | fold -w 70 | sed 's/^/ /'; } >"$cx/class/huge.patch"
out=$(GRADE_MAX_BYTES=2000000 "$TOP/scripts/grade.sh" --all "$cx/class" 1 2>&1)
t_expect "class: an entry named summary.csv does not stop the summary" \
	"3" "$(python3 -c 'import csv,sys; print(len(list(csv.reader(open(sys.argv[1], newline=""))))-1)' "$GRADE_OUT/summary.csv" 2>/dev/null)"
t_grep "class: ... and is graded (PASS)" '^"?summary\.csv"?,01,PASS,' "$(cat "$GRADE_OUT/summary.csv" 2>/dev/null)"
t_grep "class: a patch over GRADE_MAX_BYTES is TOO_LARGE, and says the limit" 'TOO_LARGE' \
	"$(cat "$GRADE_OUT"/huge*/report.txt 2>/dev/null)"
t_grep "class: a link is graded where it points (PASS)" '^result: +PASS' "$(cat "$GRADE_OUT/lnk/report.txt" 2>/dev/null)"
ln -sfn "$cx/src/b.patch" "$cx/class/lnk.patch"
out=$(GRADE_MAX_BYTES=2000000 "$TOP/scripts/grade.sh" --all "$cx/class" 1 2>&1)
t_grep "class: ... and graded again once it points elsewhere (FAIL)" '^result: +FAIL' "$(cat "$GRADE_OUT/lnk/report.txt" 2>/dev/null)"
t_grep "class: ... while the others are not graded again" 'summary\.csv.*already graded' "$out"
rm -rf "$cx"

# nothing written outside the suite's folders (the build folder, /tmp),
# the ccache and the sandbox's user
t_expect "no file written outside the grader's folders" "" \
	"$(find "$HOME" "$TOP" /etc /usr /opt /var/lib /srv -xdev -type f -newer "$suite_start" \
		-not -path "$TOP/build/*" -not -path "$HOME/.cache/ccache/*" -not -path "$HOME/.cache/ccache" \
		-not -path "$HOME/.ccache/*" -not -path "$TOP/build" -not -path "$HOME/.cache" \
		-not -regex '/etc/\(passwd\|group\|shadow\|gshadow\|subuid\|subgid\)-?' -not -path /etc \
		-not -path "$TOP/.git/*" -not -path "$TOP/.git" 2>/dev/null | head -5)"
rm -f "$suite_start"

# no PWNED file anywhere the suite could have made one
t_expect "no PWNED file anywhere after the suite" "" \
	"$(find "$HOME" "$TOP" "${TMPDIR:-/tmp}" -maxdepth 4 -name 'PWNED*' -not -path "$TOP/build/linux/*" 2>/dev/null)"

t_summary grade
