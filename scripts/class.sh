#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Make a class of lab 1 submissions from the grader's fixtures, as a class
# hands them in: mostly right answers, some wrong, some that do not
# compile, some with CRLF line ends, some as git bundles and some as git
# repositories. Every submission's code differs from every other's (a
# function of its own in fs/exec.c, changed by SEED), so none shares a
# kernel or a ccache entry with another: each costs a compile, a link and
# a boot, as a real class does.
#
#   class.sh DIR [N] [SEED]    N submissions (30), one folder each, in DIR
#
# KERNEL_DIR is the kernel repository with the course's tags (make tree).
set -eu
. "$(dirname "$0")/lib.sh"

dir=${1:?usage: class.sh DIR [N] [SEED]}
n=${2:-30}
seed=${3:-1}
case $n$seed in *[!0-9]*) die "class.sh: N and SEED are numbers" ;; esac
fx=$TOP/tests/fixtures/grade
need_kernel_tree
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
wt=$dir/.work
rm -rf -- "$wt"
kgit worktree prune
kgit worktree add -q --detach "$wt" lab-01-start
w() { git -C "$wt" -c user.name=Student -c user.email=student@example.org "$@"; }

# a class's mix, a cycle of 15: in 30, 14 good, 4 wrong, 2 that do not
# compile, 4 CRLF, 4 bundles, 2 repositories
kinds=(good good wrong crlf good bundle nocompile good repo good wrong crlf good bundle good)
for ((i = 1; i <= n; i++)); do
	k=${kinds[(i - 1) % ${#kinds[@]}]}
	s=$(printf 'student%02d' "$i")
	src=good
	case $k in wrong | nocompile) src=$k ;; esac
	w checkout -q -f --detach lab-01-start
	w am -q "$fx/$src.patch"
	printf '\nint userns_labs_%s(int x);\nint userns_labs_%s(int x)\n{\n\treturn x * %d + %d;\n}\n' \
		"$s" "$s" "$seed" "$i" >>"$wt/fs/exec.c"
	w commit -q -am "lab 1: $s"
	rm -rf -- "${dir:?}/$s"
	mkdir -p "$dir/$s"
	case $k in
	good | wrong | nocompile)
		w format-patch -q --stdout lab-01-start..HEAD >"$dir/$s/lab1.patch" ;;
	crlf)
		w format-patch -q --stdout lab-01-start..HEAD | sed 's/$/\r/' >"$dir/$s/lab1.patch" ;;
	bundle)
		rmdir "$dir/$s"
		w bundle create -q "$dir/$s.bundle" HEAD ^lab-01-start 2>/dev/null ;;
	repo)
		# a student's own clone of the kernel (a repository of its own:
		# the grader's sandbox sees no other repository's folders), sparse,
		# at the student's commit
		rmdir "$dir/$s"
		git clone -q --no-checkout "$KERNEL_DIR" "$dir/$s"
		git -C "$dir/$s" sparse-checkout set --no-cone /fs/exec.c >/dev/null 2>&1
		git -C "$dir/$s" checkout -q --detach "$(w rev-parse HEAD)" 2>/dev/null ;;
	esac
done
kgit worktree remove --force "$wt"
info "a class of $n in $dir"
