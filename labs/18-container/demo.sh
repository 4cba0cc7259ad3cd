#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What lab 18 is about, shown in the guest (used for the book's captures):
# uid 1000 starts a container and looks around inside it.
r=/tmp/demo16
mkdir -p "$r"
mount -t tmpfs -o size=8m,mode=755,uid=1000,gid=1000 demo16 "$r"
mkdir -p "$r/bin" "$r/etc" "$r/proc" "$r/tmp"
cp /bin/busybox "$r/bin/busybox"
for a in sh id hostname ip ps cat ls; do ln -s busybox "$r/bin/$a"; done
echo 'root:x:0:0:root:/:/bin/sh' >"$r/etc/passwd"
echo 'root:x:0:' >"$r/etc/group"
cat >"$r/look.sh" <<'EOS'
echo "# id"; id
echo "# cat /proc/self/uid_map"; cat /proc/self/uid_map
echo "# hostname"; hostname
echo "# ps"; ps
echo "# ip link"; ip link
echo "# ls /"; ls /
exit 3
EOS
chown -R 1000:1000 "$r"

echo '$ ls /tmp/demo16                 # the root file system, owned by uid 1000'
ls "$r"
echo '$ runas 1000 container-ref -n box -r /tmp/demo16 /bin/sh /look.sh'
runas 1000:1000 container-ref -n box -r "$r" /bin/sh /look.sh
rc=$?
echo '$ echo $?                        # back on the host'
echo "$rc"
echo '$ hostname; id -u'
hostname
id -u
umount "$r"
