#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Make sure the Debian packages the course needs are installed. As root they
# are installed; otherwise the exact apt-get line is printed and we stop.
#   deps.sh           what a student needs (make lab-N, make check, make boot)
#   deps.sh --lint    also what 'make lint' needs (shellcheck)
#   deps.sh --book    also what 'make book' needs (pandoc, lunr, graphviz)
#   deps.sh --conf    also what 'make conformance' needs (rsync)
#   deps.sh --quick   what 'make test-quick' needs (lint, book)
#   deps.sh --test    also what 'make test' needs (all the above, chromium, gdb,
#                     the kernel source of every base this release packages)
#   deps.sh --fresh   also what 'make test-fresh' needs (debootstrap)
#   deps.sh --gdb     also what 'make gdb' needs (gdb, tmux)
#   deps.sh --pdf     also what 'make book-pdf' needs (weasyprint)
#   deps.sh --slurm   also what 'make test-slurm' needs (Slurm, munge)
#   deps.sh --table   print the table below: COMMAND PACKAGE SET
#
# Every program a target runs that a minimal Debian 12 (debootstrap
# --variant=minbase: the packages of priority "required") does not have is in
# the table, with the package that provides it and the set that installs it.
# tests/deps_audit.py checks that no script calls a program missing from it.
set -eu
. "$(dirname "$0")/lib.sh"

# COMMAND     PACKAGE            SET    (who runs it)
DEPS_TABLE='
-             linux-source-6.1   base   the kernel source of base 6.1 (/usr/src/linux-source-6.1.tar.xz)
-             linux-source-6.12  base   the kernel source of base 6.12 (Debian 13; Debian 12: bookworm-security)
gcc           gcc                lab    the kernel build, the guest tools, the demos
-             libc6-dev          lab    static libc for the guest programs
make          make               lab    every target
flex          flex               lab    the kernel build (kconfig)
bison         bison              lab    the kernel build (kconfig)
bc            bc                 lab    the kernel build (timeconst)
-             libelf-dev         lab    the kernel build (objtool)
-             libssl-dev         lab    the kernel build (certificate tools)
cpio          cpio               lab    packing the guest initramfs
ccache        ccache             lab    the kernel build
ld.lld        lld                lab    the kernel build, its linker (KERNEL_LD; without it, ld.bfd)
xz            xz-utils           lab    unpacking the kernel source
git           git                lab    the kernel tree, the steps, grading
qemu-system-x86_64 qemu-system-x86 lab  booting the kernel
busybox       busybox-static     lab    the guest userland
bwrap         bubblewrap         lab    the grader sandbox (builds and repositories of submissions)
shellcheck    shellcheck         lint   make lint
pandoc        pandoc             book   make book
-             libjs-lunr         book   make book (the search box: lunr.min.js)
dot           graphviz           book   make book (the figures, book/figures/*.dot)
chromium      chromium           test   make book-pdf, the book screenshots
python3       python3            lab    reading the results (ktap.py), reports, kunit.py parse
perl          perl               lab    checkpatch.pl (its standard modules): make lint, the patch review of make grade
rsync         rsync              conf   the kernel headers_install (make conformance)
debootstrap   debootstrap        fresh  make test-fresh
gdb           gdb                gdb    make gdb, make gdb-attach, make test (tests/gdb.sh)
tmux          tmux               gdb    make gdb (the guest and gdb side by side)
qemu-img      qemu-utils         gdb    make record (the snapshot image reverse execution starts from)
weasyprint    weasyprint         pdf    make book-pdf (page numbers, running heads, bookmarks)
pdftotext     poppler-utils      pdf    tests/book.sh (the first page of the PDF, read when it is installed)
sbatch        slurm-client       slurm  make grade-all ENGINE=slurm (sbatch, squeue, scancel)
slurmctld     slurmctld          slurm  make test-slurm (its own single-node Slurm)
slurmd        slurmd             slurm  make test-slurm
munged        munge              slurm  make test-slurm (authentication for Slurm)
'

table() { printf '%s\n' "$DEPS_TABLE" | sed -e 's/[[:space:]]\{2,\}/ /g' | grep -v '^ *$' | cut -d' ' -f1-3; }

# Every set takes the kernel source of the base in use (KERNEL, lib.sh);
# the set "base", make test's, that of every base.
case ${1:-} in
--table) table; exit 0 ;;
--test) sets="base lab lint book conf test gdb" ;;
--fresh) sets="base lab lint book conf test fresh gdb" ;;
--quick) sets="lab lint book" ;;
--lint) sets="lab lint" ;;
--book) sets="lab book" ;;
--conf) sets="lab conf" ;;
--gdb) sets="lab gdb" ;;
--pdf) sets="lab book test pdf" ;;
--slurm) sets="lab slurm" ;;
'') sets="lab" ;;
*) die "deps.sh: unknown argument '$1' (deps.sh [--test|--quick|--lint|--book|--conf|--fresh|--gdb|--pdf|--slurm|--table])" ;;
esac

pkgs=linux-source-$KERNEL
for s in $sets; do
	pkgs="$pkgs $(table | awk -v s="$s" '$3 == s { print $2 }' | tr '\n' ' ')"
done

missing=""
for p in $pkgs; do
	case " $missing " in *" $p "*) continue ;; esac
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

# the kernel source of a base this release does not package: the base in
# use is an error; another base (the set "base", make test's) is left out,
# in one line, and make test runs without it (tests/run.sh says so too)
drop_unpackaged() {
	local p keep=""
	for p in $missing; do
		if deb_packaged "$p"; then
			keep="$keep $p"
		elif [ "$p" = "linux-source-$KERNEL" ]; then
			die "KERNEL=$KERNEL: this Debian release has no package $p (the bases: $BASES; $(for b in $BASES; do deb_packaged "linux-source-$b" && printf 'KERNEL=%s ' "$b"; done)is packaged here)"
		elif [[ $p == linux-source-* ]]; then
			info "$p is not packaged for this Debian release: base ${p#linux-source-} is left out"
		else
			die "the Debian package $p is not known to apt here (apt-get update? a release without it?)"
		fi
	done
	missing=$keep
}

if [ "$(id -u)" -ne 0 ]; then
	drop_unpackaged
	[ -n "$missing" ] || exit 0
	die "missing Debian packages:$missing
Install them with:
    sudo apt-get install --no-install-recommends$missing"
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || warn "apt-get update failed; trying the install anyway"
drop_unpackaged
[ -n "$missing" ] || exit 0
info "installing:$missing"
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >"${TMPDIR:-/tmp}/userns-labs-apt.log" 2>&1 || {
	tail -20 "${TMPDIR:-/tmp}/userns-labs-apt.log" >&2
	die "apt-get install failed (log: ${TMPDIR:-/tmp}/userns-labs-apt.log)"
}
