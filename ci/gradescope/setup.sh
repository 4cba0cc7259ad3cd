#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Gradescope runs this once, as root, when it builds the autograder's image
# (the zip's contents are in /autograder/source). It installs the course's
# Debian packages (scripts/deps.sh, as 'make deps' does), imports the
# kernel tree, makes the lab tags, and builds the lab's start kernel, so
# that grading a submission costs one incremental build and a boot.
#
# Needs a Debian 12 or 13 root: the kernel source is Debian's package
# (linux-source-6.12 or linux-source-6.1). See the README, "Gradescope".
set -eu
cd "$(dirname "$0")"
# gradescope.conf: LAB and KERNEL, written by 'make gradescope'
. ./gradescope.conf
export KERNEL NO_COLOR=1 DEBIAN_FRONTEND=noninteractive
t0=$(date +%s)
if ! command -v make >/dev/null || ! command -v git >/dev/null; then
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends make git ca-certificates >/dev/null
fi
scripts/deps.sh
make tree
scripts/grade.sh --prepare "$LAB"
echo "setup.sh: lab $LAB on base $KERNEL ready in $(($(date +%s) - t0)) s"
