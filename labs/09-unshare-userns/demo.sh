#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What lab 09 is about, shown in the guest (used for the book's captures).
# uid 1000 moves itself into a new user namespace with unshare().
echo '$ runas 1000 userns-unshare        # unshare(CLONE_NEWUSER), then a map'
runas 1000 userns-unshare
echo '$ runas 1000 userns-unshare -t     # with a second thread'
runas 1000 userns-unshare -t
echo '$ runas 1000 userns-unshare -F     # sharing fs_struct with another process'
runas 1000 userns-unshare -F
echo '$ runas 1000 userns-unshare -c     # clone(CLONE_NEWUSER|CLONE_FS)'
runas 1000 userns-unshare -c
