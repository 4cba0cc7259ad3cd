#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Make the tags lab-00, lab-NN-start and lab-NN-done from the patches in
# kernel-steps/ and solutions/ (on the second base, its own patch of a step
# where it has one: kernel-steps/6.1/, solutions/6.1/; lib.sh base_patch),
# applied with 'git am -3' on top of 'distro'
# in a scratch worktree (the student's checkout is never touched). Runs again
# only when a patch changed.
set -eu
. "$(dirname "$0")/lib.sh"

need_kernel_tree
# One at a time: a grader and a student may both ask for the tags.
if [ -z "${APPLY_LOCKED:-}" ] && command -v flock >/dev/null 2>&1; then
	export APPLY_LOCKED=1
	exec flock "$(cd "$KERNEL_DIR" && cd "$(git rev-parse --git-common-dir)" && pwd)/userns-labs-apply.lock" "$0" "$@"
fi
unhide_new_files
want=$(steps_fingerprint)
have=$(kgit config --get userns-labs.steps || true)
if [ "$want" = "$have" ] && [ -z "${FORCE:-}" ] && kgit rev-parse -q --verify refs/tags/lab-00 >/dev/null; then
	exit 0
fi

info "applying the kernel steps and making the lab tags"
wt=$(dirname "$KERNEL_DIR")/.apply-worktree-$(basename "$KERNEL_DIR")
kgit worktree remove --force "$wt" >/dev/null 2>&1 || rm -rf "$wt"
kgit worktree prune
kgit worktree add -q --detach "$wt" distro
cleanup() { kgit worktree remove --force "$wt" >/dev/null 2>&1 || true; }
trap cleanup EXIT

# apply PATCH...: git am each, or explain which one failed and why
apply() {
	local p out
	for p in "$@"; do
		if ! out=$(git -C "$wt" am -q -3 --keep-non-patch "$p" 2>&1); then
			git -C "$wt" am --abort >/dev/null 2>&1 || true
			printf '%serror:%s the patch %s does not apply:\n' "$C_RED" "$C_OFF" "${p#"$TOP"/}" >&2
			printf '%s\n' "$out" | grep -v '^hint:' | head -15 | sed 's/^/    /' >&2
			printf 'No tag was changed. Fix the patch (or the kernel source version, see %s/BASE) and run again.\n' "kernel-steps${BASE_SUB:+/$BASE_SUB}" >&2
			if [ -n "$BASE_SUB" ] && [ "${p#"$TOP"/*/"$BASE_SUB"/}" = "$p" ]; then
				printf 'On %s a step whose code differs has a patch of its own: make port carries a change of the series there (HACKING.md).\n' "$KERNEL" >&2
			fi
			exit 1
		fi
	done
}

declare -a tags=()
shopt -s nullglob
mapfile -t rewinds < <(base_patches kernel-steps '00-*.patch')
apply "${rewinds[@]}"
tags+=("lab-00 $(git -C "$wt" rev-parse HEAD)")

last=$(last_step)
while read -r dir; do
	n=$(lab_num "$dir")
	[ "$((10#$n))" -gt "$last" ] && last=$((10#$n))
done < <(lab_dirs)
for ((k = 1; k <= last; k++)); do
	n=$(printf '%02d' "$k")
	mapfile -t steps < <(base_patches kernel-steps "$n-*.patch")
	apply "${steps[@]}"
	tags+=("lab-$n-start $(git -C "$wt" rev-parse HEAD)")
	mapfile -t steps < <(base_patches solutions "$n-*.patch")
	apply "${steps[@]}"
	tags+=("lab-$n-done $(git -C "$wt" rev-parse HEAD)")
done

moved=""
for t in "${tags[@]}"; do
	name=${t% *} new=${t#* }
	old=$(kgit rev-parse -q --verify "refs/tags/$name" || true)
	[ -n "$old" ] && [ "$old" != "$new" ] && moved="$moved $name"
	kgit tag -f "$name" "$new" >/dev/null
done
kgit config userns-labs.steps "$want"
if [ -n "$moved" ] && kgit for-each-ref --format='%(refname:short)' 'refs/heads/student/*' | grep -q .; then
	warn "the lab patches changed, and these tags moved:$moved"
	warn "your branches are untouched; to carry your work onto a new start, see README.md (rebase)"
fi
info "tags: lab-00 and lab-01..lab-$(printf '%02d' "$last") start/done"
