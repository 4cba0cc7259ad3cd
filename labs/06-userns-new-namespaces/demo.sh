#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What lab 06 is about, shown in the guest (used for the book's captures).
echo '$ runas 1000 unshare-others uts              # no user namespace'
runas 1000 unshare-others uts
echo '$ runas 1000 unshare-others -U uts net pid   # root of a new user namespace'
runas 1000 unshare-others -U uts net pid
echo '$ runas 1000 unshare-others -U -C uts ipc    # one clone() makes them all'
runas 1000 unshare-others -U -C uts ipc
