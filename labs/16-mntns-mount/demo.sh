#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What lab 16 is about, shown in the guest (used for the book's captures).
# Root makes a shared tmpfs and a directory to chroot into, as the check does;
# uid 1000 then mounts, unmounts, uses setns and chroots in a user namespace.
d=/tmp/lab16
mkdir -p $d/shared $d/root
echo "$ mount -t tmpfs lab16-shared $d/shared; mount --make-shared $d/shared"
mount -t tmpfs -o size=64k lab16-shared $d/shared
mount --make-shared $d/shared
mkdir $d/shared/sub
echo lab16 >$d/root/lab16-root-marker
chmod -R a+rX $d
echo "$ runas 1000 mntns-mount $d       # new userns + new mount namespace"
runas 1000 mntns-mount $d
echo "$ runas 1000 mntns-mount -U $d    # new userns, the host's mounts"
runas 1000 mntns-mount -U $d
