#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Import the base's Debian kernel source tarball (linux-source-6.1, or
# linux-source-6.12 with KERNEL=6.12) as a git repository (tag 'distro').
set -eu
. "$(dirname "$0")/lib.sh"

pkg=$(base_info package)
[ -n "$pkg" ] || pkg=linux-source-$KERNEL

installed_version() {
	dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null || echo unknown
}

# After the import: a tarball whose tree is the one the steps were written
# on (the BASE file's tree=) is that tree, whatever its version string says
# (Debian 13's 6.12.118-1 and Debian 12's 6.12.118-1~deb12u1 are one tree).
version_note() {
	local want have tree
	want=$(base_info version) tree=$(base_info tree)
	have=$(installed_version)
	if [ -n "$tree" ] && [ "$(kgit rev-parse -q --verify 'distro^{tree}' 2>/dev/null)" = "$tree" ]; then
		return 0
	fi
	if [ "$have" != "$want" ] || [ -n "$tree" ]; then
		warn "the steps were written on $pkg $want (tree ${tree:0:12}); this machine has $have, another tree."
		warn "they are applied with 'git am -3'; if one does not apply, the error names it."
	fi
}

if [ -d "$KERNEL_DIR/.git" ] && kgit rev-parse -q --verify refs/tags/distro >/dev/null; then
	version_note
	exit 0
fi

[ -f "$TARBALL" ] || die "$TARBALL not found: install Debian's kernel source with 'apt-get install $pkg' (or run 'make deps' as root)"
[ ! -e "$KERNEL_DIR" ] || die "$KERNEL_DIR exists but is not an imported tree (no git tag 'distro'). Move it away, then run again."

tmp=$KERNEL_DIR.importing
rm -rf "$tmp"
mkdir -p "$tmp"
# how many members the tarball and files its tree hold (for the progress line)
members=$(base_info members) files=$(base_info files)
mkdir -p "$LOG_DIR"
info "extracting $TARBALL into $KERNEL_DIR (about 1.5 GB)"
set -o pipefail
tar -C "$tmp" --strip-components=1 -xvf "$TARBALL" |
	python3 "$TOP/scripts/progress.py" "$LOG_DIR/import-extract.log" --every \
		--what "extracting" --expect "${members:-0}"
info "importing it into git as tag 'distro'"
git -C "$tmp" init -q -b distro-import
git -C "$tmp" config user.name "userns-labs student"
git -C "$tmp" config user.email "student@localhost"
git -C "$tmp" config gc.auto 0
git -C "$tmp" config core.untrackedCache true
git -C "$tmp" add --verbose -f -A . |
	python3 "$TOP/scripts/progress.py" "$LOG_DIR/import-add.log" --every \
		--what "importing" --expect "${files:-0}"
set +o pipefail
ver=$(installed_version)
GIT_AUTHOR_NAME="Debian kernel team" GIT_AUTHOR_EMAIL="debian-kernel@lists.debian.org" \
	GIT_AUTHOR_DATE="$GIT_COMMITTER_DATE" \
	git -C "$tmp" commit -q -m "Debian $pkg $ver" \
	-m "Imported byte for byte from $(basename "$TARBALL") by userns-labs."
git -C "$tmp" tag distro
git -C "$tmp" checkout -q --detach distro
git -C "$tmp" branch -q -D distro-import
mv "$tmp" "$KERNEL_DIR"
unhide_new_files
info "kernel tree ready: $KERNEL_DIR ($(kgit rev-parse --short distro))"
version_note
