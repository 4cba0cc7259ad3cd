#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Print labs/README.md, the course map, from every lab's lab.conf.
# 'make course-map' rewrites the file; the unit tests check it is current.
set -eu
. "$(dirname "$0")/lib.sh"

cat <<'EOT'
# The course map

Each lab puts back one piece of the user-namespace work merged for Linux 3.8, in the order
Eric Biederman's 2012 series has it, then its two companion series (network stack, mount
namespace), then a capstone. The kernel starts rewound to the 3.7 behaviour
(`kernel-steps/00-*`); `kernel-steps/NN-*` is where lab NN starts; `solutions/NN-*` is the
reference answer. After the last answer the tree is Debian's again, byte for byte (6.12, the main base, or 6.1).

This page is generated from each lab's `lab.conf` (`make course-map`).

A lab's points are earned by its own test points, by the weights its `check` declares
(`#@ points N`); its guards (`#@ guard`, the points that already pass at its start) earn
nothing, and a broken one gates the lab's score to 0.

| lab | title | series patch | upstream change | seed | kernel files | points | test points (guards) |
|---|---|---|---|---|---|---|---|
EOT
total=0
while read -r dir; do
	n=$(lab_num "$dir")
	series=$(lab_conf "$n" SERIES)
	part=${series##*, }
	case $part in patch*) ;; *) part=$series ;; esac
	files=$(lab_conf "$n" FILES)
	[ -n "$files" ] && files=$(printf '`%s` ' $files | sed 's/ $//')
	pts=$(lab_conf "$n" POINTS 10)
	total=$((total + pts))
	tp=$(python3 "$TOP/scripts/gradelib.py" points "$n" | awk '{ n++ } $3 == "guard" { g++ } END { printf "%d (%d)", n, g }')
	printf '| [%s](%s/README.md) | %s | %s | %s | %s | %s | %s | %s |\n' "$n" "$(basename "$dir")" \
		"$(lab_conf "$n" TITLE)" "$part" "$(lab_conf "$n" UPSTREAM)" "$(lab_conf "$n" SEED -)" \
		"${files:--}" "$pts" "$tp"
done < <(lab_dirs)
printf '\nTotal: %s points.\n' "$total"
