#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What lab 14 is about, shown in the guest (used for the book's captures).
# uid 1000 makes a user namespace and a network namespace; its root then
# administers the new network namespace, and tries the same on the host's.
echo '$ runas 1000 netns-admin       # root of a new userns, in a new netns'
runas 1000 netns-admin
echo '$ runas 1000 netns-admin -U    # root of a new userns, host netns'
runas 1000 netns-admin -U
echo '$ cat /proc/sys/net/ipv4/ip_forward; ls -1 /sys/class/net   # the host'
cat /proc/sys/net/ipv4/ip_forward
ls -1 /sys/class/net
