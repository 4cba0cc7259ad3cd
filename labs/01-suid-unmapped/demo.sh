#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What lab 01 is about, shown in the guest (used for the book's captures).
cp /usr/local/bin/showids /tmp/suid-root
chmod 4755 /tmp/suid-root
echo '$ ls -l /tmp/suid-root'
ls -l /tmp/suid-root | cut -c1-10
echo '$ suid-exec -m "1000 1000 1" /tmp/suid-root     # as root'
suid-exec -m "1000 1000 1" /tmp/suid-root
echo '$ runas 1000 /tmp/suid-root                     # no user namespace'
runas 1000 /tmp/suid-root
