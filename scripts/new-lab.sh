#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A new lab's files, to fill in: make new-lab LAB=NN SLUG=name.
#
#   new-lab.sh N SLUG
#
# N is the new lab's number: after the last lab, or in the middle (the labs
# from N on move up by one first, scripts/renumber.py insert N). SLUG is its
# folder's name (lower case, digits, '-'). Writes labs/NN-SLUG/ (README.md,
# lab.conf, check, hints.md, demo.sh), each with what to write marked
# "TODO", and the course map; nothing else. The kernel steps are commits on
# the main base's stack (HACKING.md, "Adding, inserting and moving a lab"),
# three mutants go to tests/mutants/, a chapter to book/chapters/NN-SLUG.md:
# make test names what is still missing.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || die "usage: make new-lab LAB=NN SLUG=name (scripts/new-lab.sh N SLUG)"
case $1 in "" | *[!0-9]*) die "LAB must be the new lab's number, not '$1' (make new-lab LAB=NN SLUG=name)" ;; esac
case $2 in "" | *[!a-z0-9-]* | -*) die "SLUG must be lower case letters, digits and '-', not '$2' (make new-lab LAB=NN SLUG=name)" ;; esac
n=$(printf '%02d' "$((10#$1))")
[ "$((10#$n))" -ge 1 ] || die "labs are numbered from 1"
last=0
while read -r d; do last=$((10#$(lab_num "$d"))); done < <(lab_dirs)
[ "$((10#$n))" -le $((last + 1)) ] || die "lab $n would leave a gap: the last lab is $last (LAB=$((last + 1)) adds one after it)"
[ -z "$(git -C "$TOP" status --porcelain)" ] ||
	die "commit or stash your changes first: a new lab may renumber the others, and git checkout . undoes it"
if [ "$((10#$n))" -le "$last" ]; then
	info "labs $n to $last move up by one (scripts/renumber.py insert $n)"
	python3 "$TOP/scripts/renumber.py" insert "$((10#$n))" "$TOP"
fi
dir=$LABS_DIR/$n-$2
[ ! -e "$dir" ] || die "${dir#"$TOP"/} exists"
mkdir -p "$dir"

cat >"$dir/lab.conf" <<EOF
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The keys: scripts/labconf.py keys
TITLE="TODO: the lab's title"
SERIES="TODO: the upstream series (Linux 3.8)"
UPSTREAM="TODO: the upstream commit's subject"
SEED=-
FILES="TODO: the kernel files the lab changes"
POINTS=10
TIMEOUT=30
HINT="TODO: what the student sees go wrong, and where to look."
EOF

cat >"$dir/check" <<EOF
#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Lab $n check: TODO what the kernel must do once the lab is done.
. /lib/ktap.sh

# One point per behaviour; ktap_plan is their number (labconf.py checks it).
# '#@ guard' above a point that passes before the change already; '#@ points
# N' for a point that weighs more than 1. Each point's name goes in README.md.
ktap_plan 1
if_wrong "TODO: what a student's wrong answer did"
expect "todo_first_point" "TODO: the output that passes" echo TODO
EOF
chmod 755 "$dir/check"

cat >"$dir/demo.sh" <<EOF
#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What lab $n is about, shown in the guest (used for the book's captures).
echo 'TODO: a command, as the student would type it'
EOF
chmod 755 "$dir/demo.sh"

cat >"$dir/hints.md" <<EOF
# Lab $n hints

## Hint 1: what goes wrong, and where
TODO

## Hint 2: which function
TODO

## Hint 3: the change
TODO
EOF

cat >"$dir/README.md" <<EOF
# Lab $n: TODO the title

*Series: TODO (Linux 3.8). Kernel file: TODO. Points: 10.*

## The goal

TODO: what the kernel you start from does, and what it must do.

\`\`\`
make lab-$((10#$n))      # your branch, a build, a boot, the check: it fails
make check      # green when you are done
\`\`\`

## The check

| point | what it tests |
|---|---|
| \`todo_first_point\` | TODO |
EOF

"$TOP/scripts/course-map.sh" >"$LABS_DIR/README.md"
info "lab $n: ${dir#"$TOP"/} written (README.md, lab.conf, check, hints.md, demo.sh) and the course map"
cat >&2 <<EOF
Now (HACKING.md, "Adding, inserting and moving a lab"):
  1. fill in the TODOs: python3 scripts/labconf.py lint, tests/unit.sh
  2. the kernel steps, on the main base's stack: make stack; in a worktree on
     'stack', commit the rewind among the rewinds, the scaffold and the answer
     after lab $((10#$n - 1))'s answer; scripts/stack.sh name COMMIT FILE for each
     (kernel-steps/00-$n-$2.patch, kernel-steps/$n-$2-scaffold.patch,
     solutions/$n-$2.patch); make export-stack; make tree
  3. the second base: make tree KERNEL=6.1 applies the series; where a patch
     does not apply there, make stack KERNEL=6.1 and carry it by hand, then
     make export-stack KERNEL=6.1 (it keeps a patch of 6.1's own only there)
  4. three mutants, tests/mutants/$n-*.patch; a chapter, book/chapters/$n-$2.md
  5. make range-diff, make test
EOF
