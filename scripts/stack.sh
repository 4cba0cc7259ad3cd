#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The course's patches as one branch of commits, and back.
#
#   stack.sh make [BRANCH]     BRANCH (default: stack) in the kernel repository,
#                              at the last lab tag: on 'distro', the rewinds, then
#                              for each lab its scaffold and its answer, each
#                              commit noted with the course file it comes from
#                              (git notes, refs/notes/userns-labs; the kernel
#                              repository is told to carry them through rebase
#                              and amend). FORCE=1 makes it again over a branch
#                              that exists.
#   stack.sh export [BRANCH]   write kernel-steps/ and solutions/ from BRANCH:
#                              each commit's 'git format-patch' (fixed identity
#                              and date, --zero-commit) to the file its note
#                              names; a course patch that no commit names is
#                              removed. Nothing is written when a commit has no
#                              note or the order is not the order in which
#                              apply-steps.sh applies the files.
#   stack.sh name COMMIT FILE  note a new commit with its file (kernel-steps/
#                              00-NN-*.patch, kernel-steps/NN-*-scaffold.patch
#                              or solutions/NN-*.patch)
#   stack.sh check [BRANCH]    export to a scratch folder and compare with the
#                              committed files, byte for byte (default: the
#                              tags, through a branch made for the purpose)
#
# A maintainer changes the stack with ordinary git (rebase -i, commit
# --fixup, range-diff), exports it, runs 'make tree' (the tags are made
# again from the files) and 'make test'. See HACKING.md.
set -eu
. "$(dirname "$0")/lib.sh"

NOTES=refs/notes/userns-labs
# format-patch as the committed files are written: no commit id, no
# signature, no numbering, seven-digit blob ids
FP=(format-patch --zero-commit --no-signature --no-numbered --abbrev=7)

# A course file is named as in the repository (kernel-steps/NAME,
# solutions/NAME); it lives in STEPS_DIR or SOLUTIONS_DIR (lib.sh).
path_of() {
	case $1 in
	kernel-steps/*) printf '%s/%s\n' "$STEPS_DIR" "${1#kernel-steps/}" ;;
	solutions/*) printf '%s/%s\n' "$SOLUTIONS_DIR" "${1#solutions/}" ;;
	esac
}
# course_files: the patch files in the order apply-steps.sh applies them
course_files() {
	local k n f last
	for f in "$STEPS_DIR"/00-*.patch; do [ -e "$f" ] && echo "kernel-steps/${f##*/}"; done
	last=$(last_step)
	while read -r d; do
		n=$(lab_num "$d")
		[ "$((10#$n))" -le "$last" ] || last=$((10#$n))
	done < <(lab_dirs)
	for ((k = 1; k <= last; k++)); do
		n=$(printf '%02d' "$k")
		for f in "$STEPS_DIR"/"$n"-*.patch; do [ -e "$f" ] && echo "kernel-steps/${f##*/}"; done
		for f in "$SOLUTIONS_DIR"/"$n"-*.patch; do [ -e "$f" ] && echo "solutions/${f##*/}"; done
	done
}
# all_patches: every course patch there is, whatever its order
all_patches() {
	local f
	for f in "$STEPS_DIR"/[0-9][0-9]-*.patch; do [ -e "$f" ] && echo "kernel-steps/${f##*/}"; done
	for f in "$SOLUTIONS_DIR"/[0-9][0-9]-*.patch; do [ -e "$f" ] && echo "solutions/${f##*/}"; done
}

# order_key FILE: where a file stands in apply-steps.sh's order (sortable)
order_key() {
	local b
	b=$(basename "$1")
	case $1 in
	kernel-steps/00-*) printf '00 0 %s\n' "$b" ;;
	kernel-steps/[0-9][0-9]-*) printf '%s 1 %s\n' "${b:0:2}" "$b" ;;
	solutions/[0-9][0-9]-*.patch) printf '%s 2 %s\n' "${b:0:2}" "$b" ;;
	*) return 1 ;;
	esac
}

make_stack() {
	local br=${1:-stack} tip files commits i
	need_kernel_tree
	# (FORCE is this script's: apply-steps.sh would make every tag again)
	FORCE='' "$TOP/scripts/apply-steps.sh"
	if kgit rev-parse -q --verify "refs/heads/$br" >/dev/null && [ -z "${FORCE:-}" ]; then
		die "the branch $br exists: export it (make export-stack), or FORCE=1 to make it again from the tags"
	fi
	[ "$(kgit symbolic-ref --short -q HEAD || true)" != "$br" ] ||
		die "the kernel tree is on $br: switch to another branch first"
	tip=$(step_tag "$(last_step)")
	mapfile -t files < <(course_files)
	mapfile -t commits < <(kgit rev-list --reverse "distro..$tip")
	[ "${#files[@]}" -eq "${#commits[@]}" ] ||
		die "the tags do not match the patches (${#commits[@]} commits on $tip, ${#files[@]} files): run 'make tree'"
	for i in "${!commits[@]}"; do
		kgit notes --ref="$NOTES" add -f -m "userns-labs-file: ${files[$i]}" "${commits[$i]}" 2>/dev/null
	done
	# the notes follow their commits through rebase and amend
	kgit config notes.rewriteRef "$NOTES"
	kgit config notes.rewrite.rebase true
	kgit config notes.rewrite.amend true
	kgit branch -f "$br" "$tip"
	info "$br: ${#commits[@]} commits on distro (the rewinds, then each lab's scaffold and answer), each noted with its file"
	cat >&2 <<EOT
    git -C ${KERNEL_DIR#"$PWD"/} log --oneline --notes=userns-labs distro..$br   # the stack and its files
    git -C ${KERNEL_DIR#"$PWD"/} rebase -i distro $br                             # change it
    make export-stack                                                   # write the patches back
EOT
}

# note_of COMMIT: the course file a commit's note names (empty: none)
note_of() {
	kgit notes --ref="$NOTES" show "$1" 2>/dev/null | sed -n 's/^userns-labs-file: *//p' | head -1
}

# export_to BRANCH DIR: every commit's patch under DIR/<its file>; the list
# of files written on stdout. Fails, writing nothing, on a missing note, a
# file named twice, a name outside the course's patches, or an order that
# apply-steps.sh would not apply.
export_to() {
	local br=$1 dir=$2 c f key prev="" bad="" seen=" " list=""
	kgit rev-parse -q --verify "$br^{commit}" >/dev/null || die "no branch or commit '$br' in the kernel repository (make stack makes it)"
	kgit merge-base --is-ancestor distro "$br" || die "$br is not on distro"
	[ -z "$(kgit rev-list --merges "distro..$br")" ] || die "$br has merge commits: a stack is a line of commits"
	while read -r c; do
		f=$(note_of "$c")
		if [ -z "$f" ]; then
			bad="$bad
    $(kgit log -1 --format='%h %s' "$c"): no file (scripts/stack.sh name ${c:0:12} kernel-steps/... or solutions/...)"
			continue
		fi
		if ! key=$(order_key "$f"); then
			bad="$bad
    $(kgit log -1 --format='%h %s' "$c"): '$f' is not a course patch name"
			continue
		fi
		[[ $seen != *" $f "* ]] || bad="$bad
    $(kgit log -1 --format='%h %s' "$c"): '$f' is named by two commits"
		seen="$seen$f "
		if [ -n "$prev" ] && [[ ! "$prev" < "$key" ]]; then
			bad="$bad
    $(kgit log -1 --format='%h %s' "$c"): '$f' comes after '${prev##* }' here, before it in apply-steps.sh's order (rewinds, then each lab's scaffold, then its answer; by name within each)"
		fi
		prev=$key
		list="$list$c $f
"
	done < <(kgit rev-list --reverse "distro..$br")
	[ -z "$bad" ] || die "cannot export $br:$bad"
	# one format-patch for the whole line (each commit's file is what
	# format-patch writes for it alone), then each file to its name
	rm -rf "$dir/.fp"
	kgit "${FP[@]}" -o "$dir/.fp" "distro..$br" >/dev/null
	local out i=0
	mapfile -t out < <(find "$dir/.fp" -name '*.patch' | LC_ALL=C sort)
	while read -r c f; do
		[ -n "$c" ] || continue
		mkdir -p "$dir/$(dirname "$f")"
		mv "${out[$i]}" "$dir/$f"
		i=$((i + 1))
		echo "$f"
	done <<<"$list"
	rm -rf "$dir/.fp"
}

export_stack() {
	local br=${1:-stack} f written=0 changed=0 removed=0
	need_kernel_tree
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(export_to "$br" "$tmp" >"$tmp.list") || { rm -f "$tmp.list"; exit 1; }
	while read -r f; do
		written=$((written + 1))
		if ! cmp -s "$tmp/$f" "$(path_of "$f")"; then
			changed=$((changed + 1))
			info "written: $f"
		fi
		cp "$tmp/$f" "$(path_of "$f")"
	done <"$tmp.list"
	while read -r f; do
		grep -qxF "$f" "$tmp.list" && continue
		rm -f -- "$(path_of "$f")"
		removed=$((removed + 1))
		info "removed: $f (no commit of $br names it)"
	done < <(all_patches)
	rm -f "$tmp.list"
	info "$br exported: $written patches, $changed changed, $removed removed; now 'make tree' makes the tags from them, and 'make test'"
}

check_stack() {
	local br=${1:-} f bad=0 n=0
	need_kernel_tree
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	if [ -z "$br" ]; then
		br=userns-labs-check-stack
		FORCE=1 make_stack "$br" 2>/dev/null
		trap 'rm -rf "$tmp"; kgit branch -D userns-labs-check-stack >/dev/null 2>&1 || true' EXIT
	fi
	(export_to "$br" "$tmp" >"$tmp/.list") || exit 1
	while read -r f; do
		n=$((n + 1))
		if ! cmp -s "$tmp/$f" "$(path_of "$f")"; then
			bad=$((bad + 1))
			printf 'differs: %s\n' "$f"
			diff -u "$(path_of "$f")" "$tmp/$f" | sed -n '3,12p' | sed 's/^/    /'
		fi
	done <"$tmp/.list"
	while read -r f; do
		grep -qxF "$f" "$tmp/.list" || { bad=$((bad + 1)); printf 'not in the stack: %s\n' "$f"; }
	done < <(all_patches)
	[ "$bad" -eq 0 ] || die "$bad of the course's patches differ from what $br exports"
	info "all $n patches are what $br exports, byte for byte"
}

case ${1:-} in
make) make_stack "${2:-}" ;;
export) export_stack "${2:-}" ;;
check) check_stack "${2:-}" ;;
name)
	[ $# -eq 3 ] || die "usage: stack.sh name COMMIT FILE"
	order_key "$3" >/dev/null || die "'$3' is not a course patch name (kernel-steps/00-NN-*.patch, kernel-steps/NN-*.patch, solutions/NN-*.patch)"
	need_kernel_tree
	kgit notes --ref="$NOTES" add -f -m "userns-labs-file: $3" "$2"
	info "$(kgit log -1 --format='%h %s' "$2") -> $3"
	;;
*) die "usage: stack.sh make|export|check [BRANCH], or stack.sh name COMMIT FILE" ;;
esac
