#!/usr/bin/env bash
# The staircase: every step of the course built and booted once, with every
# lab's check. At lab-00 (step 0), at lab-NN-start (step N-1) and lab-NN-done
# (step N), the check of lab j passes exactly when the step it needs (its
# lab.conf NEEDS_STEP, by default j) is reached. Anything else is a failure.
# Then the identity (the last step gives back Debian's tarball byte for byte)
# and a kernel that does not compile (the error must be shown).
#
# Runs in its own worktree and build directory (build/test): the student's
# checkout in build/linux is never touched.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/lib.sh"
. "$here/lib.sh"

"$TOP/scripts/import-kernel.sh" || exit 1
"$TOP/scripts/apply-steps.sh" || exit 1

T=$BUILD/test
export OBJ_DIR=$T/obj GUEST_DIR=$T/guest LOG_DIR=$T/logs
wt=$T/linux
mkdir -p "$T" "$LOG_DIR"
if [ ! -e "$wt/.git" ]; then
	kgit worktree prune
	kgit worktree add -q --detach "$wt" lab-00 || die "cannot make the test worktree $wt"
fi
main_kernel=$KERNEL_DIR
export KERNEL_DIR=$wt
git -C "$wt" checkout -q -f --detach lab-00

"$TOP/scripts/build-guest.sh" >/dev/null || die "the guest initramfs does not build"

labs=""
while read -r d; do labs="$labs $(lab_num "$d")"; done < <(lab_dirs)
labs=${labs# }
last=$(last_step)
rows="lab-00"
for ((k = 1; k <= last; k++)); do rows="$rows $(printf 'lab-%02d-start lab-%02d-done' "$k" "$k")"; done

row_step() { # TAG -> the step number it stands for
	case $1 in
	lab-00) echo 0 ;;
	lab-*-start) echo $((10#$(echo "$1" | cut -c5-6) - 1)) ;;
	lab-*-done) echo $((10#$(echo "$1" | cut -c5-6))) ;;
	esac
}

printf '\nstaircase: %s (P pass, . fail, as expected; ! marks a wrong result)\n' "$(echo "$rows" | wc -w) steps"
printf '%-14s' ""
for j in $labs; do printf ' %3s' "$j"; done
printf '\n'
bad=0 kbad=""
kunit=$wt/tools/testing/kunit/kunit.py

# Mutants: tests/mutants/NN-*.patch are plausible wrong answers to lab NN,
# each a patch onto lab-NN-start whose header names the test point that
# must catch it ("Caught-by: POINT"). At the lab-NN-start row each is
# built and booted with lab NN's check, which must FAIL at that point.
mdir=$here/mutants
mrows="" mbad=0 mcount=0
mutant_row() { mrows="$mrows$(printf '  %-24s %-9s %s' "$1" "$2" "$3")"$'\n'; }
mutate() { # NN
	local n=$1 m name caught rc failed st
	for m in "$mdir/$n"-*.patch; do
		[ -e "$m" ] || continue
		mcount=$((mcount + 1))
		name=$(basename "$m" .patch)
		caught=$(sed -n 's/^Caught-by: *//p' "$m" | head -1)
		git -C "$wt" checkout -q -f --detach "lab-$n-start"
		if ! git -C "$wt" apply "$m" 2>/dev/null; then
			mutant_row "$name" BAD "does not apply onto lab-$n-start"
			mbad=$((mbad + 1))
			continue
		fi
		if ! BUILD_LABEL=mutant-$name "$TOP/scripts/build-kernel.sh" >"$LOG_DIR/build-mutant-$name.out" 2>&1; then
			mutant_row "$name" BAD "does not compile: see $LOG_DIR/build-mutant-$name.out"
			mbad=$((mbad + 1))
			continue
		fi
		rc=0
		"$TOP/scripts/run-qemu.sh" --labs "$n" --log "$LOG_DIR/mutant-$name.log" || rc=$?
		st=$("$TOP/scripts/ktap.sh" results "$LOG_DIR/mutant-$name.ktap" "$n" | awk '{ print $2 }')
		failed=$("$TOP/scripts/ktap.sh" json "$LOG_DIR/mutant-$name.ktap" "$n" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for lab in d["labs"].values():
    print(" ".join(p["name"] for p in lab["points"] if p["status"] not in ("PASS", "SKIP", "XFAIL")))')
		if [ "$st" = PASS ]; then
			mutant_row "$name" SURVIVED "lab $n's check passed (boot exit $rc)"
			mbad=$((mbad + 1))
		elif [ -z "$caught" ] || [[ " $failed " != *" $caught "* ]]; then
			mutant_row "$name" WRONG "caught by '${failed:-no point ($st)}', not by its header's '${caught:-?}'"
			mbad=$((mbad + 1))
		else
			mutant_row "$name" killed "by $failed"
			rm -f "$LOG_DIR/mutant-$name.log"
		fi
	done
	git -C "$wt" checkout -q -f --detach "lab-$n-start"
}

for tag in $rows; do
	step=$(row_step "$tag")
	git -C "$wt" checkout -q -f --detach "$tag"
	log=$LOG_DIR/staircase-$tag.log
	printf '%-14s' "$tag"
	if ! BUILD_LABEL=$tag "$TOP/scripts/build-kernel.sh" >"$LOG_DIR/build-$tag.out" 2>&1; then
		printf ' BUILD FAILED, see %s\n' "$LOG_DIR/build-$tag.out"
		bad=$((bad + 1))
		continue
	fi
	rc=0
	"$TOP/scripts/run-qemu.sh" --labs "$labs" --log "$log" || rc=$?
	res=$("$TOP/scripts/ktap.sh" results "${log%.log}.ktap" "$labs")
	# the kernel's own KTAP parser must read the same results
	if [ -f "$kunit" ] && ! kdiff=$(python3 "$here/kunit_compare.py" "$kunit" "${log%.log}.ktap" 2>&1); then
		kbad="$kbad$tag: $kdiff
"
	fi
	rowbad=0
	for j in $labs; do
		st=$(printf '%s\n' "$res" | awk -v j="$j" '$1 == j { print $2 }')
		need=$(lab_needs_step "$j")
		if [ "$need" -le "$step" ]; then want=PASS; else want=FAIL; fi
		got=FAIL
		[ "$st" = PASS ] && got=PASS
		cell=.
		[ "$got" = PASS ] && cell=P
		if [ "$got" != "$want" ] || { [ "$want" = FAIL ] && [ "$st" != FAIL ]; }; then
			cell="$cell!"
			rowbad=1
		fi
		printf ' %3s' "$cell"
	done
	[ "$rc" -eq 0 ] || { printf '  (boot ended badly: %s)' "$rc"; rowbad=1; }
	printf '\n'
	if [ "$rowbad" -ne 0 ]; then
		bad=$((bad + 1))
		"$TOP/scripts/ktap.sh" report "${log%.log}.ktap" "$labs" | sed 's/^/      /'
		printf '      kept: %s (kernel log) and %s (results)\n' "$log" "${log%.log}.ktap"
	else
		rm -f "$log"
	fi
	case $tag in lab-*-start) mutate "${tag:4:2}" ;; esac
done
if [ "$bad" -eq 0 ]; then
	t_ok "staircase: every step gives exactly the expected pass/fail row"
else
	t_fail "staircase: $bad step(s) gave a wrong row (see above)"
fi
if [ ! -f "$kunit" ]; then
	t_fail "kunit.py: not in the worktree ($kunit)"
elif [ -z "$kbad" ]; then
	t_ok "kunit.py parse reads every step's results as ktap.py does (labs, points, statuses)"
else
	t_fail "kunit.py parse and ktap.py disagree" "$kbad"
fi

if [ "$mcount" -eq 0 ]; then
	t_fail "mutants: none found in $mdir"
else
	printf '\nmutants: %d plausible wrong answers, each must fail its lab'"'"'s check at the point its header names\n%s' "$mcount" "$mrows"
	if [ "$mbad" -eq 0 ]; then
		t_ok "mutants: all $mcount killed, each by the point its header names"
	else
		t_fail "mutants: $mbad of $mcount survived, or were caught by another point (see the matrix above)"
	fi
fi

# --- scores: a lab's start scores 0, its answer full marks, and its guards
# are exactly the points that already pass at its start
out=$(python3 "$TOP/scripts/gradelib.py" staircase-scores "$LOG_DIR" 2>&1)
rc=$?
printf '%s\n' "$out" | sed -n 's/^  /      /p'
t_expect "scores: do-nothing (lab-NN-start) scores 0 and the answer (lab-NN-done) full marks, for every kernel lab; guards are the points that pass before any change" 0 "$rc"
[ "$rc" -eq 0 ] || printf '%s\n' "$out" | grep -v '^  ' | sed 's/^/#   /'

# --- identity -------------------------------------------------------------
final=$(step_tag "$last")
t_expect "identity: $final has the tree of distro" \
	"$(git -C "$main_kernel" rev-parse 'distro^{tree}')" "$(git -C "$main_kernel" rev-parse "$final^{tree}")"
git -C "$wt" checkout -q -f --detach "$final"
ref=$T/tarball
rm -rf "$ref"
mkdir -p "$ref"
tar -C "$ref" --strip-components=1 -xf "$TARBALL"
if out=$(diff -r --no-dereference -x .git "$ref" "$wt" 2>&1); then
	t_ok "identity: $final equals $(basename "$TARBALL") byte for byte"
else
	t_fail "identity: $final differs from $(basename "$TARBALL")" "$out"
fi
rm -rf "$ref"

# --- a kernel that does not compile ---------------------------------------
printf 'this is not C;\n' >>"$wt/fs/exec.c"
out=$(BUILD_LABEL=broken "$TOP/scripts/build-kernel.sh" 2>&1)
rc=$?
git -C "$wt" checkout -q -f -- fs/exec.c
t_expect "broken kernel: build-kernel.sh exits 2" 2 "$rc"
t_grep "broken kernel: the compiler's error is shown with its file" 'fs/exec.c:[0-9]+:[0-9]+: error' "$out"
t_expect "broken kernel: the error is short (not a wall)" 1 "$([ "$(printf '%s\n' "$out" | wc -l)" -le 50 ] && echo 1 || echo 0)"

# --- a guest that panics, one that hangs ----------------------------------
git -C "$wt" checkout -q -f --detach "$final"
BUILD_LABEL=$final "$TOP/scripts/build-kernel.sh" >/dev/null 2>&1
rc=0
QEMU_APPEND="rdinit=/nope init=/nope" "$TOP/scripts/run-qemu.sh" --labs 01 --log "$LOG_DIR/panic.log" || rc=$?
t_expect "panic: run-qemu.sh reports PANIC (exit 4)" 4 "$rc"
t_grep "panic: the serial log keeps the panic message" 'Kernel panic' "$(cat "$LOG_DIR/panic.log")"
rc=0
QEMU_APPEND="labs.mode=hang" "$TOP/scripts/run-qemu.sh" --labs 01 --timeout 8 --log "$LOG_DIR/hang.log" || rc=$?
t_expect "hang: run-qemu.sh reports TIMEOUT (exit 3) after its timeout" 3 "$rc"
t_expect "hang: the lab is MISSING, not passed" "01 MISSING 0 0" "$("$TOP/scripts/ktap.sh" results "$LOG_DIR/hang.ktap" 01)"

t_summary staircase
