#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# fastlink.sh [--made-version] LINK-VMLINUX-SH [MAKE-ARGS...]: vmlinux linked again after an edit (the fast
# path of build-kernel.sh), with the kernel's own link steps, but one
# kallsyms pass fewer than link-vmlinux.sh makes when the symbols' names
# did not change.
#
# Why it can: the kallsyms tables (every symbol's name and address, linked
# into vmlinux) are made from a link that already holds tables of the same
# size, so that no address moves when the real tables replace them.
# link-vmlinux.sh starts each build from empty tables, which takes two
# links before the last. The last build's tables are the right size
# whenever the names are the same (an edit inside functions): one link
# with them gives the final addresses, and the last link follows. When
# no symbol moved either (code of the same size), the tables that link
# makes are the ones it was linked with, and on 6.12 it is the last link
# itself (see final() below): one link in all.
#
# The result is the same bytes as link-vmlinux.sh's: the final link reads
# the same objects and tables computed from the same addresses, under the
# same file names (the second pass's, as kbuild's usual run: a run of
# kbuild's that needed a third pass would name its tables' source
# .tmp_vmlinux3 in the image). That rests on the tables' layout depending
# on the symbols' names alone, as kallsyms makes them. What is checked each
# time is the kernel's own check, run here too: the final System.map must
# be the symbol list that the tables were made from (tests/loop.sh compares
# the bytes with kbuild's full run).
#
# Run in the obj dir, in kbuild's saved environment (build-kernel.sh's
# kb), which holds what link-vmlinux.sh reads (LD, KBUILD_LDFLAGS,
# LDFLAGS_vmlinux, NM, CC, srctree...). Its functions (vmlinux_link,
# kallsyms, mksysmap, sorttable...) are the kernel's, read from the
# script; only the order of the steps is this script's.
# Exit 3: nothing done that counts, and kbuild's own link must run: a
# configuration it does not take (BTF, Clang's LTO, IBT, modules, whose
# exports Makefile.vmlinux links in, no kallsyms), no
# last link to start from, or tables that moved twice. Any other failure:
# the same (the caller runs kbuild's link, whose messages are the ones to
# read: what this script printed is then left out); vmlinux is then
# removed.
set -eu
# --made-version: init/version-timestamp.o is made already, by the make
# link-vmlinux.sh runs first (build-kernel.sh's stamp_start), and nothing
# was changed since: that make is not run again
made_version=
[ "$1" != --made-version ] || { made_version=1; shift; }
script=$1
shift
# MAKE-ARGS: what build-kernel.sh gives kbuild's Makefile.vmlinux on its
# command line (the link's CC=gcc): the makes here get them the same way
# (a make of the link's object with another CC would compile it again),
# and the kernel's functions their CC
make_args=("$@")
for a in "$@"; do
	case $a in CC=*) export CC="${a#CC=}" ;; esac
done
[ -f "$script" ] && [ -f include/config/auto.conf ] || exit 3
# (kbuild's variables, not the course's settings: settings-lint skips them)
[ -z "${KALLSYMS_EXTRA_PASS:-}" ] || exit 3 # settings-lint: ignore
export LD KBUILD_LDFLAGS LDFLAGS_vmlinux
: "${LD:?}" "${KBUILD_LDFLAGS?}" "${LDFLAGS_vmlinux?}" "${srctree:?}" # settings-lint: ignore
nm=${NM:?} make=${MAKE:-make} arch=${SRCARCH:?} # settings-lint: ignore

# The kernel's functions: each from its 'name()' line to the '}' that
# closes it at the start of a line, as link-vmlinux.sh writes them.
funcs=$(awk '/^[a-z_]+\(\)/ { f = 1 } f { print } f && /^}/ { f = 0 }' "$script")
[ -n "$funcs" ] || exit 3
# (written for sh -e, not -u: they read variables that may be unset)
set +u
eval "$funcs"
for f in is_enabled info vmlinux_link kallsyms mksysmap; do
	[ "$(type -t "$f")" = function ] || exit 3
done
is_enabled CONFIG_KALLSYMS || exit 3
for c in CONFIG_DEBUG_INFO_BTF CONFIG_LTO_CLANG CONFIG_X86_KERNEL_IBT CONFIG_MODULES; do
	! is_enabled "$c" || exit 3
done
# the base's names: 6.12's link-vmlinux.sh (sysmap_and_kallsyms, tables
# of .tmp_vmlinuxN), or 6.1's (kallsyms_step, .tmp_vmlinux.kallsymsN)
if [ "$(type -t sysmap_and_kallsyms)" = function ]; then
	name() { echo ".tmp_vmlinux$1"; }
	obj_of() { echo "$1.kallsyms.o"; }
elif [ "$(type -t kallsyms_step)" = function ]; then
	name() { echo ".tmp_vmlinux.kallsyms$1"; }
	obj_of() { echo "$1.o"; }
else
	exit 3
fi

# The last link's tables: those made from its System.map (the kernel's
# own check, at the end of every link, is that they are the same list)
prev=.userns-labs-kallsyms-prev.o
rm -f "$prev"
[ -f System.map ] || exit 3
for n in 3 2; do
	t=$(name "$n")
	if [ -f "$t.syms" ] && [ -f "$(obj_of "$t")" ] && cmp -s System.map "$t.syms"; then
		cp "$(obj_of "$t")" "$prev"
		break
	fi
done
[ -f "$prev" ] || exit 3

# (and System.map's nm, when a step after the last link failed beside it)
map_pid=
trap 'if [ -n "$map_pid" ]; then kill "$map_pid" 2>/dev/null || :; wait "$map_pid" 2>/dev/null || :; fi
rm -f vmlinux "$prev" "$prev.sym" "$prev.sym2"' EXIT
# same A B: two kallsyms objects of one layout (their size, and every
# symbol's place in them: link-vmlinux.sh's own tests)
same() {
	[ "$(wc -c <"$1")" -eq "$(wc -c <"$2")" ] || return 1
	"$nm" -n "$1" >"$prev.sym"
	"$nm" -n "$2" >"$prev.sym2"
	cmp -s "$prev.sym" "$prev.sym2"
}

# as link-vmlinux.sh starts: the object that holds the version string
[ -n "$made_version" ] ||
	$make -f "${srctree}/scripts/Makefile.build" obj=init init/version-timestamp.o "${make_args[@]}"

# (no BTF object: refused above; the kernel's 6.12 vmlinux_link reads it)
# shellcheck disable=SC2034
btf_vmlinux_bin_o=
t=$(name 2)
# The first pass's link may be the last one: when the tables it was
# linked with are the very tables its addresses give (the edit moved no
# symbol: a function whose code kept its size, to its alignment), the last
# link would read the same bytes and write the same file. That holds when
# the pass links by the last link's own command, which 6.12's
# link-vmlinux.sh allows: without --strip-debug (there is no debug
# information to strip, or this is not done), and with no link map (named
# after its output). 6.1's strips every pass: not there.
whole=
if [ "$(type -t sysmap_and_kallsyms)" = function ] && ! is_enabled CONFIG_DEBUG_INFO &&
	! is_enabled CONFIG_VMLINUX_MAP; then
	whole=1
fi
# pass PREV: a link with the tables in PREV, the tables of its addresses
# made, under the second pass's names (kallsymso: the tables made)
# (strip_debug and kallsymso are read by the kernel's vmlinux_link)
# shellcheck disable=SC2034
pass() {
	kallsymso=$1
	if [ "$(type -t sysmap_and_kallsyms)" = function ]; then
		strip_debug=1
		[ -z "$whole" ] || strip_debug=
		vmlinux_link "$t"
		sysmap_and_kallsyms "$t"
		strip_debug=
	else
		kallsyms_step 2
	fi
}
# final: the tables came out as they went in, and the pass linked by the
# last link's command: that link is the last one
last=
final() {
	[ -n "$whole" ] && cmp -s "$prev" "$kallsymso" || return 1
	mv -f "$t" vmlinux || return 1
	info LD "vmlinux: the pass's own link (no symbol moved: its tables were the final ones)"
	last=1
}
pass "$prev"
if ! final && ! same "$prev" "$kallsymso"; then
	# the names changed: one more pass, from tables of the right size
	cp "$kallsymso" "$prev"
	pass "$prev"
	final || same "$prev" "$kallsymso" || exit 3
fi

# the last link, and what link-vmlinux.sh does after it
if [ -n "$last" ]; then
	:
elif [ "$(type -t sysmap_and_kallsyms)" = function ]; then
	vmlinux_link vmlinux
else
	vmlinux_link vmlinux "$kallsymso"
fi
# (System.map beside the table sort and the architecture's step: both
# change sections of vmlinux that nm does not read, in place or by a
# rename, and neither reads System.map)
mksysmap vmlinux System.map &
map_pid=$!
if is_enabled CONFIG_BUILDTIME_TABLE_SORT; then
	info SORTTAB vmlinux
	sorttable vmlinux
fi
# (and Makefile.vmlinux's step after the script, for the architecture)
if [ -f "${srctree}/arch/$arch/Makefile.postlink" ]; then
	$make -f "${srctree}/arch/$arch/Makefile.postlink" vmlinux "${make_args[@]}"
fi
wait "$map_pid"
map_pid=
cmp -s System.map "$t.syms" || exit 3
trap - EXIT
rm -f "$prev" "$prev.sym" "$prev.sym2"
