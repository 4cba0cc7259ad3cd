#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What lab 03 is about, shown in the guest (used for the book's captures).
# Files owned by host ids 100001 and 100002: 1 and 2 in a namespace whose
# map is "0 100000 1000".
mkdir /tmp/d
chown 100000:100000 /tmp/d
touch /tmp/d/f /tmp/d/g
chown 100001:100001 /tmp/d/f
chown 100001:100002 /tmp/d/g
chmod 755 /tmp/d/g
echo '$ stat -c "%n %u:%g %a" /tmp/d/f /tmp/d/g     # as the host sees them'
stat -c "%n %u:%g %a" /tmp/d/f /tmp/d/g
echo '$ userns-chown chown /tmp/d/f 2:2 chmod /tmp/d/g 2755'
userns-chown chown /tmp/d/f 2:2 chmod /tmp/d/g 2755
echo '$ userns-chown chown /etc/passwd 1:1        # owned by the host'"'"'s root'
userns-chown chown /etc/passwd 1:1
echo '$ stat -c "%n %u:%g %a" /tmp/d/f /tmp/d/g     # afterwards, on the host'
stat -c "%n %u:%g %a" /tmp/d/f /tmp/d/g
