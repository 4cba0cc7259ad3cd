#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What lab 02 is about, shown in the guest (used for the book's captures).
echo '$ runas 1000 userns-clone                  # an ordinary user'
runas 1000 userns-clone
echo '$ echo 0 >/proc/sys/kernel/unprivileged_userns_clone'
echo 0 >/proc/sys/kernel/unprivileged_userns_clone
echo '$ runas 1000 userns-clone                  # Debian'"'"'s switch is off'
runas 1000 userns-clone
echo '$ userns-clone                             # root, switch still off'
userns-clone
echo 1 >/proc/sys/kernel/unprivileged_userns_clone
