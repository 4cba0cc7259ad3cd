#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Configure (tinyconfig + kernel-steps/config.fragment, on either base) and build the kernel
# out of tree with ccache. The compiler's first errors are shown on failure.
set -eu
. "$(dirname "$0")/lib.sh"

need_kernel_tree
mkdir -p "$OBJ_DIR" "$LOG_DIR"
FRAG=$TOP/kernel-steps/config.fragment
log=$LOG_DIR/build-$(basename "$OBJ_DIR").log

# The version string says which tree this kernel was built from, so a report
# can be traced to its kernel: the tag or branch, the commit and, when the
# work tree has changes, a hash of them.
describe=$(kgit describe --tags --always 2>/dev/null || echo unknown)
branch=$(kgit symbolic-ref --short -q HEAD || true)
# the whole work tree (changed and new files too) as one tree id: it names
# the kernel's changes and says whether anything changed since the last build
work=$(work_tree_id)
if [ -z "$work" ]; then
	dirt=$(kgit diff HEAD 2>/dev/null | sha1sum | cut -c1-8)
elif [ "$work" = "$(kgit rev-parse 'HEAD^{tree}')" ]; then
	dirt=clean
else
	dirt=${work:0:8}
fi
KBUILD_BUILD_VERSION="${BUILD_LABEL:-${branch:-$describe}}@$(kgit rev-parse --short=10 HEAD):$dirt"
# BUILD_VERSION: the whole string, as given (the grader names a kernel by
# its tree, so that the same tree builds the same kernel)
KBUILD_BUILD_VERSION=${BUILD_VERSION:-$KBUILD_BUILD_VERSION}
export KBUILD_BUILD_VERSION

kbuild_make
MAKE=("${KMAKE[@]}")

# EXTRA_FRAGMENT: merged after config.fragment (make gdb's debug build)
frags=("$FRAG")
[ -z "${EXTRA_FRAGMENT:-}" ] || frags+=("$EXTRA_FRAGMENT")
stamp=$OBJ_DIR/.userns-labs-config
want=$(cat "${frags[@]}" | sha1sum | cut -c1-40)
if [ ! -f "$OBJ_DIR/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	info "configuring: tinyconfig + $(for f in "${frags[@]}"; do basename "$f"; done | paste -sd+ | sed 's/+/ + /g')"
	{
		"${MAKE[@]}" tinyconfig &&
			"$KERNEL_DIR"/scripts/kconfig/merge_config.sh -m -O "$OBJ_DIR" \
				"$OBJ_DIR/.config" "${frags[@]}" &&
			"${MAKE[@]}" olddefconfig
	} >"$log" 2>&1 || die "configuration failed, see $log"
	missing=""
	while IFS= read -r line; do
		case $line in CONFIG_*=y) grep -qx "$line" "$OBJ_DIR/.config" || missing="$missing ${line%=y}" ;; esac
	done < <(cat "${frags[@]}")
	[ -z "$missing" ] || warn "not set in .config after merging:$missing"
	# kbuild makes auto.conf again from .config only when .config is the
	# newer of the two, and an obj dir copied with copy_obj has every file
	# of one time (its touch below comes after this): without auto.conf,
	# kbuild must make it, and builds what the new options add.
	rm -f "$OBJ_DIR/include/config/auto.conf"
	echo "$want" >"$stamp"
fi

# Nothing changed since the last good build (the same work tree, config,
# version string and this script): no kbuild run at all.
# The image is vmlinux itself: QEMU boots it through its PVH entry point,
# so there is no bzImage to compress here and none to unpack in the guest.
image=$OBJ_DIR/vmlinux
built=$OBJ_DIR/.userns-labs-built
# the last good build's work tree and configuration, for the fast path
last=$OBJ_DIR/.userns-labs-tree
# (and kbuild's command line and the flags it reads from the environment:
# kbuild rebuilds every object whose command changed, the fast path would not)
# The folders are named as the obj dir sees them (kbuild's commands name the
# source from the obj dir, ../linux), so that a copy of an obj dir next to
# another worktree (copy_obj, lib.sh) keeps its record.
cfg=$( {
	cat "$OBJ_DIR/.config" "$0" "$TOP/scripts/fastbuild.py"
	for a in "${MAKE[@]}" "${KCFLAGS-}" "${KCPPFLAGS-}" "${KAFLAGS-}" "${LLVM-}" "${CCACHE_BASEDIR-}"; do
		a=${a//"$KERNEL_DIR"/@KERNEL_DIR} a=${a//"$OBJ_DIR"/@OBJ_DIR} a=${a//"$BUILD"/@BUILD}
		printf '%s\n' "$a"
	done
} | grep -v '^-j' | sha1sum | cut -c1-40)
key=
[ -n "$work" ] && key="$work $cfg $KBUILD_BUILD_VERSION"
if [ -n "$key" ] && [ -f "$image" ] && [ "$(cat "$built" 2>/dev/null)" = "$key" ] && [ -z "${FORCE_BUILD:-}" ]; then
	info "kernel up to date: nothing changed since the last build (${image#"$TOP"/})"
	exit 0
fi
rm -f "$built"

# The fast path: when the edit since the last good build touched C files
# and headers that only a few vmlinux objects use (scripts/fastbuild.py
# reads that from kbuild's own .cmd files), build just those objects and
# link again, without kbuild's walk of every folder (some 5 s here).
# Anything else (a Makefile, Kconfig, a header that a generated file or
# many objects use, FULL_BUILD=1) takes kbuild's full run.
objs="" fast=""
read -r last_tree last_cfg 2>/dev/null <"$last" || last_tree=""
if [ -n "$work" ] && [ -n "$last_tree" ] && [ "$last_cfg" = "$cfg" ] && [ -f "$image" ] &&
	[ -f "$OBJ_DIR/vmlinux.a" ] && [ -z "${FULL_BUILD:-}" ] && [ -z "${FORCE_BUILD:-}" ]; then
	set -o pipefail
	if objs=$(kgit diff-tree -r -z --no-renames --name-status "$last_tree" "$work" |
		python3 "$TOP/scripts/fastbuild.py" "$OBJ_DIR" "$KERNEL_DIR"); then
		fast=1
	else
		[ -z "${VERBOSE:-}" ] || info "full build: ${objs:-no record of the last build}"
		objs=""
	fi
	set +o pipefail
fi
# A copy of an obj dir built from another tree (copy_obj): make goes by
# modification times, in kbuild's full run and for the fast path's objects
# alike, and a file that differs between that tree and this one may be
# older here than its object there. Touched, each differing file is newer
# than every copied object.
# Every copied file gets this moment's time first: the worktree may have
# been made after the copy (a checkout newer than every object would make
# kbuild redo everything).
copied=$OBJ_DIR/.userns-labs-copied
if [ -f "$copied" ]; then
	if [ -n "$last_tree" ] && [ -n "$work" ]; then
		find "$OBJ_DIR" -exec touch -c -h -d "@$(date +%s.%N)" -- {} +
		kgit diff-tree -r -z --no-renames --name-only "$last_tree" "$work" |
			(cd "$KERNEL_DIR" && xargs -0 -r touch -c --)
	else
		# no record of the tree it was built from: nothing in it can be trusted
		info "a copied obj dir with no record of its tree: building it from nothing"
		find "$OBJ_DIR" -mindepth 1 -maxdepth 1 ! -name .config ! -name .userns-labs-config -exec rm -rf {} +
	fi
fi
[ -n "$fast" ] || rm -f "$last"

# what is built, in words: the branch, where it stands, uncommitted changes
what=${branch:+branch $branch, }$(tree_where)
[ "$dirt" = clean ] || what="$what, with uncommitted changes"
[ -z "$fast" ] || what="$what; $(printf "%s\n" "$objs" | grep -c . || true) object(s) to compile, then the link"
info "building the kernel ($what; log: ${log#"$TOP"/})"
start=$(date +%s)
# progress from kbuild's own lines: the count of the last cold build of this
# obj dir is the expected count (a cold build keeps it for the next one)
counts=$LOG_DIR/objects-$(basename "$OBJ_DIR")
cold=
[ -f "$OBJ_DIR/vmlinux" ] || cold=--save
# with no count kept, the base's (its BASE file: objects=)
obj_est=${OBJ_ESTIMATE:-$(base_info objects)}
rc=0
set -o pipefail
if [ -n "$fast" ]; then
	# build-dir names no folder: 'vmlinux' then only links (vmlinux.a is a
	# thin archive, it reads the objects just built), after the touch
	# tells the link that its input changed. init/version.o always: kbuild
	# remakes its header (utsversion-tmp.h, the version string that uname
	# shows) on every walk, and the version string names the tree.
	# shellcheck disable=SC2086 # object paths, no spaces
	{
		"${MAKE[@]}" init/version.o $objs &&
			touch "$OBJ_DIR/vmlinux.a" &&
			"${MAKE[@]}" build-dir=.userns-labs-no-walk vmlinux
	} 2>&1 | python3 "$TOP/scripts/progress.py" "$log" --what "building" --expect 0 || rc=$?
else
	"${MAKE[@]}" vmlinux 2>&1 | python3 "$TOP/scripts/progress.py" "$log" --what "building" \
		--count-file "$counts" --expect "${obj_est:-0}" $cold || rc=$?
fi
set +o pipefail
if [ "$rc" -ne 0 ]; then
	# some objects of this tree may be built and others not: the next
	# build takes kbuild's full run
	rm -f "$last"
	# the compiler names files from the obj dir (../linux/fs/exec.c): name
	# them from where the student stands, so an editor can open them
	from=$(realpath -m --relative-to="$OBJ_DIR" "$KERNEL_DIR" | sed 's/[].[*^$#\\/]/\\&/g')
	to=$(realpath -m --relative-to="$PWD" "$KERNEL_DIR" | sed 's/[&#\\]/\\&/g')
	printf '%serror:%s the kernel does not compile. The first errors:\n' "$C_RED" "$C_OFF" >&2
	{ grep -E -A4 '(error|Error):|undefined reference|^make.*\*\*\*' "$log" | head -40 || tail -20 "$log"; } |
		sed -e "s#^$from/#$to/#" -e "s#\([ :'\"(]\)$from/#\1$to/#g" -e 's/^/    /' >&2
	printf 'Full log: %s\n' "$log" >&2
	exit 2
fi
grep -E 'warning:' "$log" | head -10 | sed 's/^/    /' >&2 || true
[ -n "$key" ] && echo "$key" >"$built"
rm -f "$copied"
[ -z "$work" ] || echo "$work $cfg" >"$last"
info "kernel built in $(($(date +%s) - start)) s: ${image#"$TOP"/}"
