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
#   stack.sh port [BRANCH]     carry a change made on this base's stack (its
#                              'git commit --fixup' commits on BRANCH) to the
#                              other base's stack (made from its tags if
#                              need be), fold it into its step on both and
#                              export both (the main base first); stops at a
#                              conflict, naming the step and its files
#   stack.sh range-diff        the two bases' lines of tags compared with 'git
#                              range-diff' (no worktree: a scratch repository
#                              that borrows both repositories' objects)
#
# One series: the main base's stack exports to kernel-steps/ and
# solutions/. The other base's export writes a step's patch to its own
# folder (kernel-steps/6.1/NAME) only where the series' patch does not give
# that step's commit there (another tree, or another message), and removes
# an own patch the series has caught up with.
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

# A course file is named as in the series (kernel-steps/NAME,
# solutions/NAME); on the main base it lives there (STEPS_DIR,
# SOLUTIONS_DIR; lib.sh), on the other base its export goes to the base's
# own folder (kernel-steps/6.1/NAME) and base_patch finds what it applies.
path_of() {
	case $1 in
	kernel-steps/*) printf '%s/%s\n' "$STEPS_DIR${BASE_SUB:+/$BASE_SUB}" "${1#kernel-steps/}" ;;
	solutions/*) printf '%s/%s\n' "$SOLUTIONS_DIR${BASE_SUB:+/$BASE_SUB}" "${1#solutions/}" ;;
	esac
}
# course_files: the patch files in the order apply-steps.sh applies them
course_files() {
	local k n f last
	base_patches kernel-steps '00-*.patch' | while read -r f; do echo "kernel-steps/${f##*/}"; done
	last=$(last_step)
	while read -r d; do
		n=$(lab_num "$d")
		[ "$((10#$n))" -le "$last" ] || last=$((10#$n))
	done < <(lab_dirs)
	for ((k = 1; k <= last; k++)); do
		n=$(printf '%02d' "$k")
		base_patches kernel-steps "$n-*.patch" | while read -r f; do echo "kernel-steps/${f##*/}"; done
		base_patches solutions "$n-*.patch" | while read -r f; do echo "solutions/${f##*/}"; done
	done
}
# all_patches: every course patch this base applies, whatever its order
all_patches() {
	local f
	base_patches kernel-steps '[0-9][0-9]-*.patch' | while read -r f; do echo "kernel-steps/${f##*/}"; done
	base_patches solutions '[0-9][0-9]-*.patch' | while read -r f; do echo "solutions/${f##*/}"; done
}
# series_gives FILE COMMIT: on the other base, the series' patch of FILE's
# name gives COMMIT as it is: the same message, and applied on COMMIT's
# parent, the same tree (then the base needs no patch of its own)
series_gives() {
	local exported=$1 c=$2 s idx tree
	[ -n "$BASE_SUB" ] || return 1
	s=$(series_patch "$3")
	[ -f "$s" ] || return 1
	# the message: everything before the diff (format-patch's header,
	# the message, the diffstat)
	cmp -s <(sed '/^diff --git /,$d' "$exported") <(sed '/^diff --git /,$d' "$s") || return 1
	idx=$(mktemp "${TMPDIR:-/tmp}/userns-labs-stack-index.XXXXXX")
	tree=$(GIT_INDEX_FILE=$idx kgit read-tree "$c^" && GIT_INDEX_FILE=$idx kgit apply --cached "$s" 2>/dev/null &&
		GIT_INDEX_FILE=$idx kgit write-tree) || tree=""
	rm -f "$idx"
	[ -n "$tree" ] && [ "$tree" = "$(kgit rev-parse "$c^{tree}")" ]
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

# export_to BRANCH DIR: every commit's patch under DIR/<its file>; each
# commit and its file, a line each, on stdout. Fails, writing nothing, on a missing note, a
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
		echo "$c $f"
	done <<<"$list"
	rm -rf "$dir/.fp"
}

# plan BRANCH DIR: export BRANCH to DIR, and say for each file where it goes:
# "own FILE" (written to path_of FILE) or, on the other base, "series FILE"
# (the series' patch gives that step: no file of the base's own)
plan() {
	local c f
	export_to "$1" "$2" >"$2/.list" || return 1
	while read -r c f; do
		if series_gives "$2/$f" "$c" "$f"; then echo "series $f"; else echo "own $f"; fi
	done <"$2/.list"
}

export_stack() {
	local br=${1:-stack} f how written=0 changed=0 removed=0
	need_kernel_tree
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(plan "$br" "$tmp" >"$tmp/.plan") || exit 1
	# the other base cannot leave out a step of the series: said before
	# anything is written
	if [ -n "$BASE_SUB" ]; then
		while read -r f; do
			grep -q " $f\$" "$tmp/.plan" || [ -e "$(path_of "$f")" ] ||
				die "$br has no commit for $f, a step of the series: $KERNEL cannot leave a step out (nothing was written)"
		done < <(all_patches)
	fi
	while read -r how f; do
		written=$((written + 1))
		if [ "$how" = series ]; then
			if [ -e "$(path_of "$f")" ]; then
				rm -f -- "$(path_of "$f")"
				removed=$((removed + 1))
				info "removed: $(path_of "$f" | sed "s#^$TOP/##") (the series' patch gives this step on $KERNEL)"
			fi
			continue
		fi
		if ! cmp -s "$tmp/$f" "$(path_of "$f")"; then
			changed=$((changed + 1))
			info "written: $(path_of "$f" | sed "s#^$TOP/##")"
		fi
		mkdir -p "$(dirname "$(path_of "$f")")"
		cp "$tmp/$f" "$(path_of "$f")"
	done <"$tmp/.plan"
	while read -r f; do
		grep -q " $f\$" "$tmp/.plan" && continue
		rm -f -- "$(path_of "$f")"
		removed=$((removed + 1))
		info "removed: $f (no commit of $br names it)"
	done < <(all_patches)
	info "$br exported: $written patches, $changed changed, $removed removed; now 'make tree' makes the tags from them, and 'make test'"
}

check_stack() {
	local br=${1:-} f how bad=0 n=0 own=0
	need_kernel_tree
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	if [ -z "$br" ]; then
		br=userns-labs-check-stack
		FORCE=1 make_stack "$br" 2>/dev/null
		trap 'rm -rf "$tmp"; kgit branch -D userns-labs-check-stack >/dev/null 2>&1 || true' EXIT
	fi
	(plan "$br" "$tmp" >"$tmp/.plan") || exit 1
	while read -r how f; do
		n=$((n + 1))
		if [ "$how" = series ]; then
			if [ -n "$BASE_SUB" ] && [ -e "$(path_of "$f")" ]; then
				bad=$((bad + 1))
				printf 'not needed: %s (the series'"'"' %s gives this step on %s)\n' "${BASE_SUB}/${f#*/}" "$f" "$KERNEL"
			fi
			continue
		fi
		own=$((own + 1))
		if ! cmp -s "$tmp/$f" "$(path_of "$f")"; then
			bad=$((bad + 1))
			printf 'differs: %s\n' "$(path_of "$f" | sed "s#^$TOP/##")"
			diff -u "$(path_of "$f")" "$tmp/$f" 2>&1 | sed -n '3,12p' | sed 's/^/    /'
		fi
	done <"$tmp/.plan"
	while read -r f; do
		grep -q " $f\$" "$tmp/.plan" || { bad=$((bad + 1)); printf 'not in the stack: %s\n' "$f"; }
		# a base's own patch stands for a step of the series (of the
		# same name): one without (a step renamed in the series since)
		# would be applied besides the series' own
		if [ -n "$BASE_SUB" ] && [ ! -e "$(series_patch "$f")" ]; then
			bad=$((bad + 1))
			printf 'no step of the series: %s (renamed in the series? export %s again)\n' "$(path_of "$f" | sed "s#^$TOP/##")" "$KERNEL"
		fi
	done < <(all_patches)
	[ "$bad" -eq 0 ] || die "$bad of the course's patches differ from what $br exports"
	if [ -n "$BASE_SUB" ]; then
		info "all $n patches are what $br exports: $own of its own, byte for byte, $((n - own)) the series' as they are"
	else
		info "all $n patches are what $br exports, byte for byte"
	fi
}

# --- port: a change carried to the other base ----------------------------

# the base that is not KERNEL, and the one that is not the main base
other_base() { local b; for b in $BASES; do [ "$b" = "$KERNEL" ] || { echo "$b"; return; }; done; }
second_base() { local b; for b in $BASES; do [ "$b" = "$MAIN_BASE" ] || { echo "$b"; return; }; done; }

# fixups BRANCH: the commits of BRANCH that no note names, each with the
# course file of the step it changes and how ("COMMIT FILE fixup" or
# "COMMIT FILE amend"): a 'fixup! SUBJECT' or 'amend! SUBJECT' commit
# belongs to the last noted commit before it whose subject is SUBJECT, else
# the last whose subject begins with it, as for git rebase --autosquash.
# Call it in this shell, its output to a file: its die must stop the port.
fixups() {
	local br=$1 c s how target prefix f t ts
	while read -r c; do
		[ -z "$(note_of "$c")" ] || continue
		s=$(kgit log -1 --format=%s "$c")
		case $s in
		"fixup! "*) how=fixup s=${s#fixup! } ;;
		"amend! "*) how=amend s=${s#amend! } ;;
		"squash! "*) die "$(kgit log -1 --format='%h %s' "$c"): a squash! commit; make it a fixup (git commit --fixup=COMMIT) or, to change the step's message, an amend! (git commit --fixup=amend:COMMIT)" ;;
		*) die "$(kgit log -1 --format='%h %s' "$c"): a commit of $br with no course file; to carry a change, make it with 'git commit --fixup=COMMIT' (COMMIT: the step it changes)" ;;
		esac
		target="" prefix=""
		while read -r t; do
			[ -n "$(note_of "$t")" ] || continue
			ts=$(kgit log -1 --format=%s "$t")
			[ "$ts" != "$s" ] || target=$t
			case $ts in "$s"*) prefix=$t ;; esac
		done < <(kgit rev-list --reverse "distro..$c^")
		target=${target:-$prefix}
		[ -n "$target" ] || die "$(kgit log -1 --format='%h %s' "$c"): no step of $br has the subject '$s'"
		f=$(note_of "$target")
		echo "$c $f $how"
	done < <(kgit rev-list --reverse "distro..$br")
}

# stack_worktree BRANCH FILES...: a worktree on BRANCH to rebase in, on
# stdout: the one BRANCH is checked out in (it must be clean), else a new
# sparse one with the files the stack and FILES touch (seconds, where a
# whole kernel checkout takes a minute)
stack_worktree() {
	local br=$1 wt
	shift
	wt=$(kgit worktree list --porcelain | awk -v b="branch refs/heads/$br" '/^worktree /{w=substr($0,10)} $0==b{print w}')
	if [ -n "$wt" ]; then
		[ -z "$(git -C "$wt" status --porcelain --untracked-files=no)" ] ||
			die "$br is checked out in $wt, with changes not committed: commit or stash them first"
		echo "$wt"
		return
	fi
	wt=$BUILD/port-$br
	if [ -e "$wt/.git" ] && { [ -d "$(git -C "$wt" rev-parse --git-path rebase-merge 2>/dev/null)" ] ||
		[ -d "$(git -C "$wt" rev-parse --git-path rebase-apply 2>/dev/null)" ]; }; then
		die "a port stopped at a conflict in $wt: finish it there (git add, git rebase --continue) or drop it (git rebase --abort), then run this again"
	fi
	kgit worktree remove --force "$wt" >/dev/null 2>&1 || rm -rf "$wt"
	kgit worktree prune
	kgit worktree add -q --no-checkout "$wt" "$br" >/dev/null 2>&1 || die "no worktree for $br at $wt"
	{ kgit log --name-only --format= "distro..$br"; printf '%s\n' "$@"; } | grep . | sort -u | sed 's#^#/#' |
		git -C "$wt" sparse-checkout set --no-cone --stdin 2>/dev/null
	git -C "$wt" read-tree -mu HEAD 2>/dev/null || die "the sparse worktree $wt"
	echo "$wt"
}
drop_worktree() { case $1 in "$BUILD"/port-*) kgit worktree remove --force "$1" >/dev/null 2>&1 || true ;; esac; }

# fold WORKTREE "COMMIT FILE"...: each COMMIT (on top of the worktree's
# branch) folded into the step whose note is FILE, by a rebase -i whose
# list is written here; a conflict stops it, named
fold() {
	local wt=$1 todo c f line picks fc ff fhow
	shift
	todo=$(mktemp "${TMPDIR:-/tmp}/userns-labs-todo.XXXXXX")
	picks=" "
	for line in "$@"; do picks="$picks${line%% *} "; done
	while read -r c; do
		[[ $picks == *" $c "* ]] && continue
		echo "pick $c"
		f=$(note_of "$c")
		for line in "$@"; do
			read -r fc ff fhow <<<"$line"
			[ "$ff" = "$f" ] || continue
			# an amend! carries the step's new message: fixup -C takes it
			if [ "$fhow" = amend ]; then echo "fixup -C $fc"; else echo "fixup $fc"; fi
		done
	done < <(git -C "$wt" rev-list --reverse distro..HEAD) >"$todo"
	if ! GIT_SEQUENCE_EDITOR="cp $todo" git -C "$wt" rebase -q -i distro >"$todo.out" 2>&1; then
		c=$(git -C "$wt" rev-parse -q --verify REBASE_HEAD 2>/dev/null || true)
		printf '%serror:%s on %s, folding the change into its step stopped at a conflict\n' "$C_RED" "$C_OFF" "$KERNEL" >&2
		[ -z "$c" ] || printf '    while applying %s (%s)\n' "$(git -C "$wt" log -1 --format='%h %s' "$c")" "$(note_of "$c")" >&2
		git -C "$wt" diff --name-only --diff-filter=U | sed 's/^/    conflict in: /' >&2
		printf 'Resolve it in %s (edit, git add, git rebase --continue), then make export-stack (KERNEL=%s first, then KERNEL=%s), make tree for both, make test.\n' \
			"$wt" "$MAIN_BASE" "$(second_base)" >&2
		rm -f "$todo" "$todo.out"
		exit 1
	fi
	rm -f "$todo" "$todo.out"
}

# carry BRANCH DIR (on the other base): the patches DIR/NNNN.patch, listed
# in DIR/list with their steps ("NNNN.patch FILE"), applied on top of
# BRANCH (made from the tags when it does not exist) and folded into their
# steps
carry() {
	local br=$1 dir=$2 p f how wt out before files=() pairs=()
	need_kernel_tree
	FORCE='' "$TOP/scripts/apply-steps.sh"
	kgit rev-parse -q --verify "refs/heads/$br" >/dev/null || FORCE='' make_stack "$br" 2>/dev/null
	fixups "$br" >"$dir/own-fixups"
	[ ! -s "$dir/own-fixups" ] || die "$KERNEL's $br has changes not folded yet (commits with no course file): fold or drop them first"
	while read -r p f how; do
		mapfile -t -O "${#files[@]}" files < <(git apply --numstat "$dir/$p" | cut -f3)
	done <"$dir/list"
	wt=$(stack_worktree "$br" "${files[@]}")
	before=$(git -C "$wt" rev-parse HEAD)
	while read -r p f how; do
		if ! out=$(git -C "$wt" am -q -3 "$dir/$p" 2>&1); then
			git -C "$wt" am --abort >/dev/null 2>&1 || true
			# the changes carried before this one go too: all or none
			git -C "$wt" reset -q --hard "$before"
			printf '%serror:%s the change to %s does not apply to the stack of %s:\n' "$C_RED" "$C_OFF" "$f" "$KERNEL" >&2
			printf '%s\n' "$out" | grep -v '^hint:' | head -12 | sed 's/^/    /' >&2
			printf 'Nothing was changed on either base. Make the change on %s by hand (git commit --fixup on its %s), then make export-stack for both bases (%s first).\n' "$KERNEL" "$br" "$MAIN_BASE" >&2
			drop_worktree "$wt"
			exit 1
		fi
		pairs+=("$(git -C "$wt" rev-parse HEAD) $f $how")
	done <"$dir/list"
	fold "$wt" "${pairs[@]}"
	drop_worktree "$wt"
	info "$KERNEL: ${#pairs[@]} change(s) carried onto $br and folded into their steps"
}

port() {
	local br=${1:-stack} other c f how i=0 wt pairs=() files=()
	need_kernel_tree
	other=$(other_base)
	kgit rev-parse -q --verify "refs/heads/$br" >/dev/null ||
		die "no branch $br on $KERNEL: make stack, commit the change with git commit --fixup, then make port"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	fixups "$br" >"$tmp/fixups"
	mapfile -t pairs <"$tmp/fixups"
	[ "${#pairs[@]}" -gt 0 ] ||
		die "$br has no change to carry: commit it on $br with 'git commit --fixup=COMMIT' (COMMIT: the step it changes), then make port"
	for c in "${pairs[@]}"; do
		i=$((i + 1))
		read -r c f how <<<"$c"
		kgit format-patch -1 --stdout --zero-commit --no-signature "$c" >"$tmp/$(printf '%04d' "$i").patch"
		printf '%04d.patch %s %s\n' "$i" "$f" "$how" >>"$tmp/list"
		mapfile -t -O "${#files[@]}" files < <(kgit diff-tree --no-commit-id --name-only -r "$c")
		info "$KERNEL: $(kgit log -1 --format='%h %s' "$c") -> $f"
	done
	# the other base first: a change that does not go there changes nothing
	KERNEL=$other "$TOP/scripts/stack.sh" _carry "$br" "$tmp" || exit 1
	wt=$(stack_worktree "$br" "${files[@]}")
	fold "$wt" "${pairs[@]}"
	drop_worktree "$wt"
	info "$KERNEL: folded into their steps on $br"
	# the series first: the other base's export compares with it
	KERNEL=$MAIN_BASE "$TOP/scripts/stack.sh" export "$br" || exit 1
	KERNEL=$(second_base) "$TOP/scripts/stack.sh" export "$br" || exit 1
	info "ported: both bases' patches are written; now make tree and make tree KERNEL=$(second_base) (the tags), make range-diff, make test"
}

# --- range-diff: the two bases' lines compared ---------------------------

# range_diff [--summary]: 'git range-diff' of the main base's tags against
# the other base's (distro .. the last lab's done tag; without --summary,
# all of it), then scripts/rangediff.py's line per step. No worktree, and
# nothing copied: a scratch bare repository borrows both kernel
# repositories' objects (alternates).
range_diff() {
	local summary=${1:-} other rm ro tip r
	other=$(second_base)
	rm=$(base_build "$MAIN_BASE")/linux ro=$(base_build "$other")/linux
	for r in "$rm" "$ro"; do
		git -C "$r" rev-parse -q --verify refs/tags/lab-00 >/dev/null 2>&1 ||
			die "no lab tags in ${r#"$TOP"/}: make tree KERNEL=$MAIN_BASE and make tree KERNEL=$other"
	done
	tip=$(KERNEL=$MAIN_BASE BASE_SUB='' step_tag "$(BASE_SUB='' last_step)")
	rd=$(mktemp -d)
	trap 'rm -rf "$rd"' EXIT
	git init -q --bare "$rd/r.git"
	printf '%s\n%s\n' "$(git -C "$rm" rev-parse --path-format=absolute --git-common-dir)/objects" \
		"$(git -C "$ro" rev-parse --path-format=absolute --git-common-dir)/objects" >"$rd/r.git/objects/info/alternates"
	for r in m:"$rm" o:"$ro"; do
		git -C "$rd/r.git" update-ref "refs/${r%%:*}/distro" "$(git -C "${r#*:}" rev-parse 'distro^{commit}')"
		git -C "$rd/r.git" update-ref "refs/${r%%:*}/tip" "$(git -C "${r#*:}" rev-parse "$tip^{commit}")"
	done
	git -C "$rd/r.git" range-diff --no-color --creation-factor=100 \
		refs/m/distro..refs/m/tip refs/o/distro..refs/o/tip >"$rd/out" || die "git range-diff failed"
	[ -n "$summary" ] || cat "$rd/out"
	BASE_SUB=$other course_files >"$rd/files"
	python3 "$TOP/scripts/rangediff.py" "$rd/out" "$rd/files" --top "$TOP" --other "$other" \
		--notes "$TOP/book/bases-$MAIN_BASE.md"
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
port) port "${2:-}" ;;
_carry) carry "$2" "$3" ;;
range-diff) range_diff "${2:-}" ;;
*) die "usage: stack.sh make|export|check|port [BRANCH], stack.sh range-diff [--summary], or stack.sh name COMMIT FILE" ;;
esac
