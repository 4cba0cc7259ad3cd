#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # wt: set by runner_layout (mutants-lib.sh)
# The staircase: every step of the course built and booted once, with every
# lab's check (a lab-NN-start whose code is the step before it, comments
# aside, is read from that step's boot), and each lab's mutants. At lab-00 (step 0), at lab-NN-start (step N-1) and lab-NN-done
# (step N), the check of lab j passes exactly when the step it needs (its
# lab.conf NEEDS_STEP, by default j) is reached. Anything else is a failure.
# Then the identity (the last step gives back Debian's tarball byte for byte)
# and a kernel that does not compile (the error must be shown).
#
# Runs in its own worktree and build directory (build/test): the student's
# checkout in build/linux is never touched.
#
#   tests/staircase.sh          the base in KERNEL (lib.sh): steps, mutants,
#                               scores, identity, the build scripts' own tests
#   tests/staircase.sh --base   steps, scores, identity and the fast path's
#                               bytes only: make test's run of the second
#                               base, whose mutants and other script tests
#                               the first one ran
set -u
only_base=
[ "${1:-}" != --base ] || only_base=" (the mutants ran on the first base)"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/lib.sh"
. "$here/../scripts/qemu-outcomes.sh"
. "$here/lib.sh"

"$TOP/scripts/import-kernel.sh" || exit 1
"$TOP/scripts/apply-steps.sh" || exit 1

. "$here/mutants-lib.sh"
T=$BUILD/test
main_kernel=$KERNEL_DIR
runner_layout
git -C "$wt" checkout -q -f --detach lab-00

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

bad=0 kbad="" retried=""
kunit=$wt/tools/testing/kunit/kunit.py
cost_reset

# Build every step, and the mutants at each lab-NN-start: each kernel boots
# in the background while the next one builds. The rows are read after.
# A lab-NN-start that differs from the row before it (lab-(NN-1)-done) in
# comments only, the lab's LAB marks, is that row's kernel: same_code.py
# checks it, token by token, and the row is read from that boot.
printf '\nbuilding and booting %s steps%s on %s...\n' "$(echo "$rows" | wc -w)" "${only_base:- and the mutants}" "$KERNEL"
built="" same="" prevtag=""
nrows=$(echo "$rows" | wc -w) i=0 t_rows=$(date +%s)
# progress: one line per step, with the time so far and an estimate of the rest
# (from the rows after the first: the first build is the cold one)
t_first=
row_progress() { # TAG WHAT
	local el left=""
	el=$(($(date +%s) - t_rows))
	[ -n "$t_first" ] || t_first=$el
	[ "$i" -lt 3 ] || [ "$i" -ge "$nrows" ] ||
		left=", about $((((el - t_first) * (nrows - i) / (i - 1) + 30) / 60)) min left"
	printf 'step %d of %d: %s %s (%d:%02d%s)\n' "$i" "$nrows" "$1" "$2" $((el / 60)) $((el % 60)) "$left"
}
# the mutants' second lane starts once the first step is built (started
# with it, on a cold ccache both would compile the whole kernel at once:
# twice the work; after it, the lane's first build is ccache's); the main
# lane joins after the rows
lane_b=
[ -n "$only_base" ] || mutants_queue
start_lane_b() {
	[ -z "$only_base" ] && [ -z "$lane_b" ] || return 0
	mutants_worker b >"$LOG_DIR/lane-b.out" 2>&1 &
	lane_b=$!
}
for tag in $rows; do
	i=$((i + 1))
	if [[ $tag == lab-*-start && " $built " == *" $prevtag "* ]] &&
		python3 "$here/same_code.py" "$wt" "$prevtag" "$tag" >/dev/null 2>&1; then
		row_progress "$tag" "is $prevtag's kernel (comments differ only)"
		built="$built $tag" same="$same $tag=$prevtag" prevtag=$tag
		continue
	fi
	prevtag=$tag
	git -C "$wt" checkout -q -f --detach "$tag"
	t0=$(date +%s.%N)
	if ! BUILD_LABEL=$tag "$TOP/scripts/build-kernel.sh" >"$LOG_DIR/build-$tag.out" 2>&1; then
		row_progress "$tag" "BUILD FAILED"
		continue
	fi
	# (the first build is the cold one: not a step's cost)
	[ "$i" -eq 1 ] || cost_add build "$t0"
	keep_image "staircase-$tag"
	BOOT_RETRY=1 boot_bg "staircase-$tag" "$labs"
	built="$built $tag"
	row_progress "$tag" "built, booting"
	start_lane_b
done
start_lane_b
if [ -z "$only_base" ]; then
	# shellcheck disable=SC2154 # mcount: mutants-lib.sh
	printf 'steps done; the mutants left to the lanes: %d of %d\n' \
		"$(find "$T/queue" -type f | wc -l)" "$mcount"
fi
boot_wait
if [ -z "$only_base" ]; then
	mutants_worker main
	wait "$lane_b" || true
fi

printf '\nstaircase on %s (%s): %s (P pass, . fail, as expected; ! marks a wrong result)\n' \
	"$KERNEL" "$(base_line)" "$(echo "$rows" | wc -w) steps"
printf '%-14s' ""
for j in $labs; do printf ' %3s' "$j"; done
printf '\n'
for tag in $rows; do
	step=$(row_step "$tag")
	log=$LOG_DIR/staircase-$tag.log
	printf '%-14s' "$tag"
	if [[ " $built " != *" $tag "* ]]; then
		printf ' BUILD FAILED, see %s\n' "$LOG_DIR/build-$tag.out"
		bad=$((bad + 1))
		continue
	fi
	note=""
	for e in $same; do
		if [ "${e%%=*}" = "$tag" ]; then
			# the kernel of the row before: its results stand for this row
			src=${e#*=}
			note="  (the kernel of $src: the two differ in comments only)"
			cp "$LOG_DIR/staircase-$src.ktap" "${log%.log}.ktap"
			[ ! -f "$LOG_DIR/staircase-$src.rc" ] || cp "$LOG_DIR/staircase-$src.rc" "$LOG_DIR/staircase-$tag.rc"
			[ ! -f "$LOG_DIR/staircase-$src.log" ] || cp "$LOG_DIR/staircase-$src.log" "$log"
		fi
	done
	rc=$(boot_rc "staircase-$tag")
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
	[ "$rc" -eq "$QEMU_OK" ] || { printf '  (boot ended badly: %s)' "$(qemu_outcome "$rc")"; rowbad=1; }
	printf '%s\n' "$note"
	if [ -f "$LOG_DIR/staircase-$tag.retried" ]; then
		retried="$retried $tag"
		printf '      booted twice: in the first boot lab(s) %s ran out of time or the guest stopped\n' \
			"$(cat "$LOG_DIR/staircase-$tag.retried")"
		printf '      (kept: %s); the row is the second boot'"'"'s\n' "$LOG_DIR/staircase-$tag.first.log"
	fi
	if [ "$rowbad" -ne 0 ]; then
		bad=$((bad + 1))
		"$TOP/scripts/ktap.sh" report "${log%.log}.ktap" "$labs" | sed 's/^/      /'
		printf '      kept: %s (kernel log) and %s (results)\n' "$log" "${log%.log}.ktap"
	else
		rm -f "$log"
	fi
done
# the checks nearest their time limit (a check whose wrong answer takes most of
# its TIMEOUT on an idle machine runs out of time on a busy one)
for tag in $built; do
	case " $same " in *" $tag="*) continue ;; esac # a copy of the row before
	"$TOP/scripts/ktap.sh" times "$LOG_DIR/staircase-$tag.ktap" | sed "s/^/$tag /"
done | awk '$4 > 0 { printf "%s %s %d %d %.2f\n", $1, $2, $3, $4, $3 / $4 }' |
	sort -k5,5nr -k3,3nr | head -3 |
	awk 'NR == 1 { print "the checks nearest their time limit (TIMEOUT in lab.conf):" }
		{ printf "  lab %s at %s: %d s of %d s\n", $2, $1, $3, $4 }'
# where the boots' time goes: each lab's check, summed over the boots
# (the staircase's boots run every check: the costliest to make faster)
for tag in $built; do
	case " $same " in *" $tag="*) continue ;; esac
	"$TOP/scripts/ktap.sh" times "$LOG_DIR/staircase-$tag.ktap"
done | awk '{ t[$1] += $2; all += $2 } END { for (l in t) printf "%d %s\n", t[l], l; printf "%d all\n", all }' |
	sort -rn | head -6 | awk 'NR == 1 { printf "time in the checks, over the boots: %d s in all;", $1; next }
		{ printf " lab %s: %d s", $2, $1 } END { print "" }'
[ -n "$only_base" ] || mutants_eval
[ -z "$retried" ] || printf 'booted twice (a check ran out of time, or the guest stopped, in the first boot):%s\n' "$retried"
if [ "$bad" -eq 0 ]; then
	t_ok "staircase ($KERNEL): every step gives exactly the expected pass/fail row"
else
	t_fail "staircase ($KERNEL): $bad step(s) gave a wrong row (see above)"
fi
if [ ! -f "$kunit" ]; then
	t_fail "kunit.py: not in the worktree ($kunit)"
elif [ -z "$kbad" ]; then
	t_ok "kunit.py parse reads every step's results as ktap.py does (labs, points, statuses)"
else
	t_fail "kunit.py parse and ktap.py disagree" "$kbad"
fi

[ -n "$only_base" ] || mutant_summary
cost_summary

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

# --- the fast path builds the kernel that kbuild builds --------------------
# (on every base: its link, scripts/fastlink.sh, runs the base's own
# link-vmlinux.sh functions, which differ between 6.1 and 6.12)
# An edit of one .c file: build-kernel.sh compiles that object and links
# without kbuild's walk; then kbuild's full run on the same tree must give
# the same vmlinux, byte for byte.
git -C "$wt" checkout -q -f --detach "$final"
BUILD_LABEL=fastpath "$TOP/scripts/build-kernel.sh" >/dev/null 2>&1
final_sum=$(sha256sum <"$OBJ_DIR/vmlinux" | cut -c1-64)
printf '\nint userns_labs_fastpath_probe(int x);\nint userns_labs_fastpath_probe(int x)\n{\n\treturn x + 42;\n}\n' >>"$wt/fs/exec.c"
out=$(BUILD_LABEL=fastpath "$TOP/scripts/build-kernel.sh" 2>&1)
fast_sum=$(sha256sum <"$OBJ_DIR/vmlinux" | cut -c1-64)
t_grep "fast path: one edited .c file compiles one object, then the link" '1 object\(s\) to compile, then the link' "$out"
out=$(FORCE_BUILD=1 BUILD_LABEL=fastpath "$TOP/scripts/build-kernel.sh" 2>&1)
t_expect "fast path: kbuild's full run on the same tree links the same vmlinux, byte for byte" \
	"$fast_sum" "$(sha256sum <"$OBJ_DIR/vmlinux" | cut -c1-64)"
t_grep "fast path: the probe is in that vmlinux" 'userns_labs_fastpath_probe' "$(nm "$OBJ_DIR/vmlinux" 2>&1 | grep fastpath_probe)"
# a change inside that function (the same names): one kallsyms pass
sleep 0.05
sed -i 's/^\treturn x + 42;$/\treturn x * 42 + (x >> 3) - (x \& 0x55);/' "$wt/fs/exec.c"
out=$(BUILD_LABEL=fastpath "$TOP/scripts/build-kernel.sh" 2>&1)
fast_sum=$(sha256sum <"$OBJ_DIR/vmlinux" | cut -c1-64)
t_expect "fast path: a change inside a function links with one kallsyms pass (fastlink.sh)" 1 \
	"$(grep -c '^  KSYMS   ' "$LOG_DIR/build-$(basename "$OBJ_DIR").log")"
out=$(FORCE_BUILD=1 BUILD_LABEL=fastpath "$TOP/scripts/build-kernel.sh" 2>&1)
t_expect "... and kbuild's full run on the same tree links the same vmlinux, byte for byte" \
	"$fast_sum" "$(sha256sum <"$OBJ_DIR/vmlinux" | cut -c1-64)"
# a change that keeps the code's size (another constant of one byte): no
# symbol moves, so the tables the kallsyms pass linked with are the final
# ones, and on 6.12 that pass's link is the last (6.1 strips its passes'
# links, so it links once more)
sleep 0.05
map=$(cat "$OBJ_DIR/System.map")
sed -i 's/^\(\treturn x \* 42 + (x >> 3) - (x & \)0x55);$/\10x5a);/' "$wt/fs/exec.c"
out=$(BUILD_LABEL=fastpath "$TOP/scripts/build-kernel.sh" 2>&1)
fast_sum=$(sha256sum <"$OBJ_DIR/vmlinux" | cut -c1-64)
blog=$LOG_DIR/build-$(basename "$OBJ_DIR").log
t_expect "fast path: a change that keeps the code's size moves no symbol" same \
	"$(grep -q '0x5a);$' "$wt/fs/exec.c" && [ "$map" = "$(cat "$OBJ_DIR/System.map")" ] && echo same || echo moved)"
links=1
grep -q '^sysmap_and_kallsyms()' "$KERNEL_DIR/scripts/link-vmlinux.sh" || links=2
t_expect "... and links $links time(s): one kallsyms pass, whose link is the last on 6.12 (fastlink.sh)" \
	"1 $links" "$(grep -c '^  KSYMS   ' "$blog") $(grep -cE '^  LD      (\.tmp_vmlinux|vmlinux$)' "$blog")"
out=$(FORCE_BUILD=1 BUILD_LABEL=fastpath "$TOP/scripts/build-kernel.sh" 2>&1)
t_expect "... and kbuild's full run on the same tree links the same vmlinux, byte for byte" \
	"$fast_sum" "$(sha256sum <"$OBJ_DIR/vmlinux" | cut -c1-64)"
git -C "$wt" checkout -q -f -- fs/exec.c
if [ -n "$only_base" ]; then
	t_summary staircase
	exit
fi

# --- a copied obj dir builds its own worktree's kernel ----------------------
# copy_obj (make gdb's debug kernel, make test's gdb test): the objects just
# built (the probe in fs/exec.c) copied next to another worktree at $final
# (lane b's, without the probe). The fast path compiles the file that
# differs; kbuild's full run (FULL_BUILD=1) goes by the times of the copy
# and the differing files. Both must link the kernel $final built above.
lw=$T/lane-b/linux cobj=$T/lane-b/obj-copy
[ -e "$lw/.git" ] || git -C "$wt" worktree add -q --detach "$lw" "$final" 2>/dev/null
git -C "$lw" checkout -q -f --detach "$final"
# (the first worktree holds another probe meanwhile: a copy that compiled
# the sources of the tree it was copied from would have it)
printf '\nint userns_labs_wrong_tree_probe(int x);\nint userns_labs_wrong_tree_probe(int x)\n{\n\treturn x + 7;\n}\n' >>"$wt/fs/exec.c"
copy_obj "$OBJ_DIR" "$cobj"
out=$(KERNEL_DIR=$lw OBJ_DIR=$cobj BUILD_LABEL=fastpath "$TOP/scripts/build-kernel.sh" 2>&1)
t_grep "copied obj dir: the fast path compiles the one file that differs" '1 object\(s\) to compile, then the link' "$out"
t_expect "... and links the kernel of its own worktree, byte for byte" \
	"$final_sum" "$(sha256sum <"$cobj/vmlinux" 2>/dev/null | cut -c1-64)"
copy_obj "$OBJ_DIR" "$cobj"
KERNEL_DIR=$lw OBJ_DIR=$cobj BUILD_LABEL=fastpath FULL_BUILD=1 "$TOP/scripts/build-kernel.sh" >/dev/null 2>&1
t_expect "copied obj dir: kbuild's full run links the same kernel, byte for byte" \
	"$final_sum" "$(sha256sum <"$cobj/vmlinux" 2>/dev/null | cut -c1-64)"
t_expect "... and no build of the copy read the first worktree's sources" "" \
	"$(nm "$cobj/vmlinux" 2>&1 | grep wrong_tree_probe)"
git -C "$wt" checkout -q -f -- fs/exec.c
rm -rf "$cobj"

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
t_expect "panic: run-qemu.sh reports PANIC" PANIC "$(qemu_outcome "$rc")"
t_grep "panic: the serial log keeps the panic message (kernel-trouble.re's [panic])" . \
	"$("$TOP/scripts/ktap.sh" grep panic "$LOG_DIR/panic.log")"
rc=0
QEMU_APPEND="labs.mode=hang" "$TOP/scripts/run-qemu.sh" --labs 01 --timeout 8 --log "$LOG_DIR/hang.log" || rc=$?
t_expect "hang: run-qemu.sh reports TIMEOUT after its timeout" TIMEOUT "$(qemu_outcome "$rc")"
t_expect "hang: the lab is MISSING, not passed" "01 MISSING 0 0" "$("$TOP/scripts/ktap.sh" results "$LOG_DIR/hang.ktap" 01)"

t_summary staircase
