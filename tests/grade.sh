#!/usr/bin/env bash
# The grader against bad input: every fixture submission gets its named
# result, with the evidence in its report, and a class run gives a CSV.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/lib.sh"
. "$here/lib.sh"
fx=$here/fixtures/grade
export NO_COLOR=1 GRADE_DIR=$BUILD/test/grade GRADE_OUT=$BUILD/test/grade/results
export GRADE_BOOT_TIMEOUT=${GRADE_BOOT_TIMEOUT:-25} GRADE_CHECK_TIMEOUT=15
rm -rf "$GRADE_OUT"

# expect_result FIXTURE RESULT [REPORT-PATTERN]
expect_result() {
	local f=$1 want=$2 pat=${3:-} out rep
	out=$("$TOP/scripts/grade.sh" "$fx/$f.patch" "${LAB:-1}" 2>&1)
	rep=$GRADE_OUT/$f/report.txt
	got=$(sed -n 's/^result: *//p' "$rep" 2>/dev/null)
	t_expect "grade $f: $want" "$want" "${got:-$(printf '%s\n' "$out" | tail -3)}"
	[ -n "$pat" ] && t_grep "grade $f: the report shows /$pat/" "$pat" "$(cat "$rep" 2>/dev/null)"
	for r in results.json results.tap results.csv; do
		[ -s "$GRADE_OUT/$f/$r" ] || t_fail "grade $f: $r was not written"
	done
}

expect_result good PASS 'score: +10.00 / 10'
expect_result crlf PASS
expect_result wrong FAIL 'not ok 4 setuid_mapped_owner_changes_euid'
expect_result tamper FAIL 'IGNORED.*labs/01-suid-unmapped/check'
expect_result noapply APPLY_FAILED 'fs/exec.c'
expect_result empty EMPTY
expect_result binary NOT_A_PATCH
expect_result nocompile BUILD_FAILED 'fs/exec.c:[0-9]+:[0-9]+: error'
expect_result panic PANIC 'Kernel panic - not syncing: lab 1 fixture'
expect_result oops OOPS 'NULL pointer dereference'
expect_result hang TIMEOUT
expect_result flood FLOOD
expect_result reboot REBOOT
expect_result segv FAIL 'killed by signal SIGSEGV'
# a kernel that prints a whole passing KTAP block and the end-of-checks line
# on its console, at boot and at reboot: the console is not the results
expect_result forged FAIL 'lab 01  FAIL'
# the same kernel under make check's reader (run-qemu.sh + ktap.sh)
rc=0
KERNEL_IMAGE=$GRADE_DIR/obj/arch/x86/boot/bzImage INITRD=$GRADE_DIR/guest/initramfs.cpio \
	"$TOP/scripts/run-qemu.sh" --labs 01 \
	--log "$GRADE_DIR/forged-check.log" || rc=$?
t_expect "forged: the guest ended its checks on its own channel (exit 0)" 0 "$rc"
t_grep "forged: the kernel did print its block on the console" '^ok 1 lab-01-suid-unmapped' \
	"$(cat "$GRADE_DIR/forged-check.log")"
t_expect "forged: make check's reader gives it no PASS" "01 FAIL 3 6" \
	"$("$TOP/scripts/ktap.sh" results "$GRADE_DIR/forged-check.ktap" 01)"
# a kernel that panics in the third point: the two points before it are kept,
# and the report names the point that was running
expect_result panic3 PANIC 'stopped during point 3, userns_root_execs_unmapped_setuid_unchanged'
t_grep "panic3: the points done before the panic are in the results" '"passed": 2, "planned": 6' \
	"$(cat "$GRADE_OUT/panic3/results.json")"
# a user-space lab: the student's program is built into the guest and tested
LAB=16 expect_result lab16-good PASS 'lab 16  PASS +14/14'
LAB=16 expect_result tamper FAIL 'lab 16  FAIL' 
t_grep "grade: the JSON names the kernel that said it" '"kernel": "6\.1\.[0-9]+-userns-labs #grade-good-lab01-' "$(cat "$GRADE_OUT/good/results.json")"
t_grep "grade: the TAP has the guest's KTAP" '^ok 1 lab-01-suid-unmapped' "$(cat "$GRADE_OUT/good/results.tap")"

# a dirty repository is refused, and left as it was
repo=$(mktemp -d)
git -C "$repo" init -q && echo a >"$repo/f" && git -C "$repo" add f &&
	git -C "$repo" -c user.name=t -c user.email=t@t commit -qm a && echo b >>"$repo/f"
"$TOP/scripts/grade.sh" "$repo" 1 >/dev/null 2>&1
t_expect "grade dirty repo: DIRTY" DIRTY "$(sed -n 's/^result: *//p' "$GRADE_OUT/$(basename "$repo")/report.txt")"
t_expect "grade dirty repo: the work is still there" "a
b" "$(cat "$repo/f")"
rm -rf "$repo"

# a class: five mixed submissions, one per directory, then a resumed run
class=$(mktemp -d)
mkdir -p "$class"/{alice,bob,carol,dave,erin}
cp "$fx/good.patch" "$class/alice/"
cp "$fx/wrong.patch" "$class/bob/"
git -C "$GRADE_DIR/linux" checkout -q -f --detach lab-01-start
git -C "$GRADE_DIR/linux" am -q "$fx/good.patch"
git -C "$GRADE_DIR/linux" bundle create -q "$class/carol.bundle" HEAD ^lab-01-start 2>/dev/null
rmdir "$class/carol"
cp "$fx/nocompile.patch" "$class/dave/"
cp "$fx/crlf.patch" "$class/erin/"
# hostile names: shell code, a quote, a space (S1)
rm -f "$HOME/PWNED5"
mkdir -p "$class/\`cd;touch PWNED5\`" "$class/q\"uote"
cp "$fx/good.patch" "$class/\`cd;touch PWNED5\`/"
cp "$fx/good.patch" "$class/q\"uote/"
cp "$class/carol.bundle" "$class/bob smith.bundle"
out=$("$TOP/scripts/grade.sh" --all "$class" 1 2>&1)
csv=$GRADE_OUT/summary.csv
t_expect "grade-all: summary.csv has a header and 8 rows" 9 "$(wc -l <"$csv" 2>/dev/null)"
t_expect "S1: a name that is shell code runs nothing" "" "$(ls "$HOME/PWNED5" ./PWNED5 2>/dev/null)"
for n in "\`cd;touch PWNED5\`" 'q"uote' 'bob smith.bundle'; do
	rep=$(grep -lF "submission: $class/$n (" "$GRADE_OUT"/*/report.txt 2>/dev/null | head -1)
	t_expect "S1: '$n' is graded on its work (PASS), its name kept in the report" PASS \
		"$(sed -n 's/^result: *//p' "$rep" 2>/dev/null)"
done
t_grep "W12: the resume stamp names the lab" "^[0-9a-f]+ lab01 " "$(cat "$GRADE_OUT/alice/.stamp")"
t_expect "grade-all: results per student" '`cd;touch PWNED5` PASS
alice PASS
bob FAIL
bob smith.bundle PASS
carol.bundle PASS
dave BUILD_FAILED
erin PASS
q"uote PASS' "$(tail -n +2 "$csv" | awk -F, '{ gsub(/^"|"$/, "", $1); gsub(/""/, "\"", $1); print $1, $3 }')"
start=$(date +%s)
out=$("$TOP/scripts/grade.sh" --all "$class" 1 2>&1)
t_grep "grade-all: a second run resumes (nothing graded again)" 'already graded' "$out"
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

t_summary grade
