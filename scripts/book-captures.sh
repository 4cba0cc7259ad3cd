#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Capture what each lab's demo prints in the guest, at the lab's start and at
# its answer, for the book: book/captures/NN-start.txt and NN-done.txt, on the
# main base ($MAIN_BASE in lib.sh, 6.12) whatever KERNEL says.
#
#   book-captures.sh [--force] [NN ...]      default: every lab with a demo.sh
#   book-captures.sh --status                 "NN start|done ok|stale|missing", no build
#   book-captures.sh --sums                   "NN start|done HASH", no build
#
# Every capture has a sidecar NN-STEP.sum: a hash of what the output depends
# on (the lab folder but its *.md, labs/lib, guest-rootfs, the lab's reference
# program in solutions/NN-*/, the code of every kernel patch
# up to that step: its git patch-id, so a patch's message, its index lines
# and its hunks' line numbers do not count). A capture whose hash still matches is kept; the others are made again
# by building the tag lab-NN-start or lab-NN-done in a worktree of our own
# (build/book-captures/linux: the student's tree is never touched), packing the
# guest and running the demo under QEMU.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/qemu-outcomes.sh"
# The book's captures are the main base's, whichever base the student uses
if [ "$KERNEL" != "$MAIN_BASE" ]; then
	[ -n "${CAPTURES_BASE_SAID:-}" ] || info "the book's captures are made on the main base, $MAIN_BASE (not $KERNEL)"
	CAPTURES_BASE_SAID=1 KERNEL=$MAIN_BASE exec "$0" "$@"
fi

CAP_DIR=${CAPTURES_DIR:-$TOP/book/captures}
CAP_BUILD=${CAPTURES_BUILD:-$BUILD/book-captures}
# One capture run at a time: they share the worktree and the build directory.
if [ -z "${CAPTURES_LOCKED:-}" ] && command -v flock >/dev/null 2>&1; then
	mkdir -p "$CAP_BUILD"
	export CAPTURES_LOCKED=1
	exec flock "$CAP_BUILD/.lock" "$0" "$@"
fi
MAIN_KERNEL=$KERNEL_DIR
force="" status=""
labs=()
for a in "$@"; do
	case $a in
	--force) force=1 ;;
	--status) status=1 ;;
	--sums) status=sums ;;
	[0-9]|[0-9][0-9]) labs+=("$(printf '%02d' "$((10#$a))")") ;;
	*) die "book-captures.sh: unknown argument '$a' (usage: book-captures.sh [--force] [NN ...])" ;;
	esac
done
if [ ${#labs[@]} -eq 0 ]; then
	while read -r d; do
		[ -f "$d/demo.sh" ] && labs+=("$(lab_num "$d")")
	done < <(lab_dirs)
fi
[ ${#labs[@]} -gt 0 ] || [ -n "$status" ] || die "no lab has a demo.sh: nothing to capture"
[ ${#labs[@]} -gt 0 ] || exit 0

# capture_sum NN STEP: the hash of every input of the capture
capture_sum() {
	local n=$1 step=$2 dir f k kind
	dir=$(lab_dir "$n") || die "there is no lab $n"
	{
		# what the guest gets: a lab's prose (*.md) is not packed, its
		# reference program (solutions/NN-*/*.c, a user-space lab's) is
		{
			find "$dir" "$TOP/labs/lib" "$TOP/guest-rootfs" -type f ! -name '*.md'
			[ ! -d "$TOP/solutions/${dir##*/}" ] || find "$TOP/solutions/${dir##*/}" -type f -name '*.c'
		} | LC_ALL=C sort | while read -r f; do
			printf '%s ' "${f#"$TOP"/}"
			sha1sum <"$f"
		done
		# each step's patch (this base's), by its series name
		for kind in kernel-steps solutions; do
			base_patches "$kind" '[0-9][0-9]-*.patch' | while read -r f; do
				k=$(basename "$f" | cut -c1-2)
				[ "$((10#$k))" -le "$((10#$n))" ] || continue
				# the solution of lab NN counts only for the 'done' capture
				[ "$kind" = kernel-steps ] || [ "$step" = "done" ] || [ "$((10#$k))" -lt "$((10#$n))" ] || continue
				printf '%s/%s ' "$kind" "${f##*/}"
				git patch-id --stable <"$f" | cut -d' ' -f1
			done
		done
	} | sha1sum | cut -c1-40
}

todo=()
for n in "${labs[@]}"; do
	for step in start "done"; do
		sum=$(capture_sum "$n" "$step")
		out=$CAP_DIR/$n-$step
		if [ "$status" = sums ]; then
			echo "$n $step $sum"
			continue
		elif [ -n "$status" ]; then
			if [ ! -f "$out.txt" ]; then echo "$n $step missing"
			elif [ "$(cat "$out.sum" 2>/dev/null)" = "$sum" ]; then echo "$n $step ok"
			else echo "$n $step stale"; fi
			continue
		fi
		if [ -z "$force" ] && [ -f "$out.txt" ] && [ "$(cat "$out.sum" 2>/dev/null)" = "$sum" ]; then
			info "lab $n at $step: capture up to date (${out#"$TOP"/}.txt)"
		else
			todo+=("$n:$step:$sum")
		fi
	done
done
[ -z "$status" ] || exit 0
[ ${#todo[@]} -gt 0 ] || { info "all captures up to date"; exit 0; }

[ -e "$MAIN_KERNEL/.git" ] || die "no kernel tree at $MAIN_KERNEL: run 'make tree' first"
# The tags must have been made from the patches in the repository (the same
# fingerprint as apply-steps.sh records), or the captures would show old code.
[ "$(steps_fingerprint)" = "$(git -C "$MAIN_KERNEL" config --get userns-labs.steps || true)" ] ||
	die "the lab tags in $MAIN_KERNEL were made from other patches than those in the repository: run 'make tree' (it remakes the tags), then 'make book-captures' again"
wt=$CAP_BUILD/linux
if [ ! -e "$wt/.git" ]; then
	info "making a worktree of our own at ${wt#"$TOP"/}"
	mkdir -p "$CAP_BUILD"
	git -C "$MAIN_KERNEL" worktree add --detach "$wt" lab-00 >/dev/null 2>&1 ||
		die "could not add a worktree at $wt (git -C $MAIN_KERNEL worktree list)"
fi
export BUILD=$CAP_BUILD KERNEL_DIR=$wt OBJ_DIR=$CAP_BUILD/obj GUEST_DIR=$CAP_BUILD/guest LOG_DIR=$CAP_BUILD/logs
mkdir -p "$CAP_DIR" "$LOG_DIR"

"$TOP/scripts/build-guest.sh"
for item in "${todo[@]}"; do
	IFS=: read -r n step sum <<<"$item"
	tag=lab-$n-$step
	git -C "$MAIN_KERNEL" rev-parse -q --verify "refs/tags/$tag" >/dev/null ||
		die "no tag $tag in $MAIN_KERNEL: run 'make tree' so the tags follow the patches"
	info "lab $n at $step: building $tag"
	git -C "$wt" checkout -q --detach --force "$tag"
	git -C "$wt" clean -qfdx
	"$TOP/scripts/build-kernel.sh"
	log=$LOG_DIR/demo-$n-$step.log
	info "lab $n at $step: running the demo in the guest (log: ${log#"$TOP"/})"
	rc=0
	"$TOP/scripts/run-qemu.sh" --demo --labs "$n" --log "$log" || rc=$?
	[ "$rc" -eq "$QEMU_OK" ] || die "the guest did not finish the demo of lab $n at $step ($(qemu_outcome "$rc")): see $log"
	# The lines between the markers; kernel messages ("[    1.23] ...") are dropped.
	awk -v b="### demo lab-$n" -v e="### end demo lab-$n" '
		$0 == e { on = 0 }
		on && $0 !~ /^\[ *[0-9]+\.[0-9]+\]/ { print }
		$0 == b { on = 1 }' "${log%.log}.ktap" >"$CAP_DIR/$n-$step.txt.tmp"
	[ -s "$CAP_DIR/$n-$step.txt.tmp" ] || die "the demo of lab $n printed nothing at $step: see $log"
	mv "$CAP_DIR/$n-$step.txt.tmp" "$CAP_DIR/$n-$step.txt"
	echo "$sum" >"$CAP_DIR/$n-$step.sum"
	info "lab $n at $step: ${CAP_DIR#"$TOP"/}/$n-$step.txt ($(wc -l <"$CAP_DIR/$n-$step.txt") lines)"
done
