#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Pack the guest initramfs: busybox-static, the tools, every lab's demos
# (static C) and checks, and /init. Output: $GUEST_DIR/initramfs.cpio
set -eu
. "$(dirname "$0")/lib.sh"

BUSYBOX=${BUSYBOX:-/bin/busybox}
[ -x "$BUSYBOX" ] && "$BUSYBOX" --list >/dev/null 2>&1 ||
	die "busybox not found at $BUSYBOX: install Debian's busybox-static (make deps)"

root=$GUEST_DIR/root
bin=$root/usr/local/bin
objs=$GUEST_DIR/bin
mkdir -p "$objs"
CFLAGS=${GUEST_CFLAGS:--static -O2 -Wall -Wextra -Wno-unused-parameter -pthread}

# compile SRC -> $objs/NAME when the source or a shared header is newer.
# GUEST_PREBUILT=DIR: a program of that name in DIR is taken as it is (the
# grader compiles a student's program in its sandbox, never here).
compile() {
	local src=$1 out
	out=$objs/$(basename "${1%.c}")
	if [ -n "${GUEST_PREBUILT:-}" ] && [ -f "$GUEST_PREBUILT/$(basename "$out")" ]; then
		cmp -s "$GUEST_PREBUILT/$(basename "$out")" "$out" 2>/dev/null ||
			cp -- "$GUEST_PREBUILT/$(basename "$out")" "$out"
		chmod 755 "$out"
		return
	fi
	if [ ! -x "$out" ] || [ "$src" -nt "$out" ] || [ "$newest_dep" -nt "$out" ]; then
		# (lab.sh may be booting the last initramfs meanwhile)
		stop_early_boot
		# shellcheck disable=SC2086
		gcc $CFLAGS -o "$out.tmp" "$src" ||
			die "the guest program $src does not compile (see the errors above)"
		mv "$out.tmp" "$out"
	fi
}

# What a demo may include besides its own file: the shared header, and the
# reference programs of user-space labs (labs/18-*/container-ref.c).
newest_dep=$(ls -t "$TOP"/labs/lib/*.h "$TOP"/solutions/*/*.c 2>/dev/null | head -1)
for src in "$TOP"/guest-rootfs/tools/*.c; do compile "$src"; done
while read -r dir; do
	for src in "$dir"/*.c; do [ -e "$src" ] && compile "$src"; done
done < <(lab_dirs)
# A student's own build of the capstone may sit in the lab folder: skip it;
# only the sources listed above are packed.

# Nothing that goes into the initramfs changed since it was packed (the
# same files, sizes and times, the same extra folder): keep it.
stamp=$GUEST_DIR/.userns-labs-packed
key=$({
	echo "${GUEST_EXTRA:-}"
	find "$objs" "$TOP/guest-rootfs" "$BUSYBOX" "$0" ${GUEST_EXTRA:+"$GUEST_EXTRA"} -type f -printf '%p %s %T@\n'
	while read -r dir; do
		find "$dir" -maxdepth 1 \( -name check -o -name lab.conf -o -name demo.sh \) -printf '%p %s %T@\n'
	done < <(lab_dirs)
} 2>/dev/null | LC_ALL=C sort | sha1sum | cut -c1-40)
if [ -f "$GUEST_DIR/initramfs.cpio" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$key" ]; then
	info "initramfs up to date: ${GUEST_DIR#"$TOP"/}/initramfs.cpio"
	exit 0
fi
# (lab.sh may be booting the last initramfs meanwhile: not this one)
stop_early_boot
rm -f "$stamp"

rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,root,home/student,lib,labs} "$bin"
cp "$BUSYBOX" "$root/bin/busybox"
for applet in $("$BUSYBOX" --list-full); do
	[ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
done
cp "$objs"/* "$bin/"
cp "$TOP/guest-rootfs/init" "$root/init"
cp "$TOP/guest-rootfs/lib/ktap.sh" "$root/lib/ktap.sh"
cp "$TOP/guest-rootfs/etc-motd" "$root/etc/motd"
# nobody/nogroup (65534), as on Debian: the overflow ids that unmapped ids
# show as, and the user that third-party namespace tests expect.
printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'student:x:1000:1000:student:/home/student:/bin/sh' \
	'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' >"$root/etc/passwd"
printf '%s\n' 'root:x:0:' 'student:x:1000:' 'nogroup:x:65534:' 'nobody:x:65534:' >"$root/etc/group"
printf '%s\n' 'root::0:0:99999:7:::' 'student::0:0:99999:7:::' 'nobody:*:0:0:99999:7:::' >"$root/etc/shadow"
chmod 600 "$root/etc/shadow"
printf 'export PS1='"'"'\\u@\\h:\\w\\$ '"'"'\nexport PATH=/usr/local/bin:/bin:/sbin:/usr/bin:/usr/sbin\n' >"$root/etc/profile"
chmod 755 "$root/init"
# the check, and what the guest needs of lab.conf (its time limits),
# generated as lab.env by the one reader of lab.conf (scripts/labconf.py,
# through lab_conf): the guest does not parse lab.conf itself
labconf_load
while read -r dir; do
	mkdir -p "$root/labs/$(basename "$dir")"
	cp "$dir/check" "$root/labs/$(basename "$dir")/"
	printf 'TIMEOUT=%s\nPOINT_TIMEOUT=%s\n' "$(lab_conf "$(lab_num "$dir")" TIMEOUT)" \
		"$(lab_conf "$(lab_num "$dir")" POINT_TIMEOUT)" >"$root/labs/$(basename "$dir")/lab.env"
	[ -f "$dir/demo.sh" ] && cp "$dir/demo.sh" "$root/labs/$(basename "$dir")/demo.sh"
done < <(lab_dirs)

# Extra files for a special run (the conformance selftests): GUEST_EXTRA=DIR
# is copied over the root as it is.
if [ -n "${GUEST_EXTRA:-}" ]; then
	[ -d "$GUEST_EXTRA" ] || die "GUEST_EXTRA=$GUEST_EXTRA is not a directory"
	cp -a "$GUEST_EXTRA"/. "$root"/
fi

(cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0 >"$GUEST_DIR/initramfs.cpio.tmp")
mv "$GUEST_DIR/initramfs.cpio.tmp" "$GUEST_DIR/initramfs.cpio"
echo "$key" >"$stamp"
info "initramfs: ${GUEST_DIR#"$TOP"/}/initramfs.cpio ($(du -k "$GUEST_DIR/initramfs.cpio" | cut -f1) KiB, $(lab_dirs | wc -l) labs)"
