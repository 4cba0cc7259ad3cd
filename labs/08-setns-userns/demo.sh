#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What lab 08 is about, shown in the guest (used for the book's captures).
# uid 1000 makes a child in a new user namespace, opens its
# /proc/PID/ns/user and enters it with setns().
echo '$ userns-setns -l                 # the links in /proc/self/ns'
userns-setns -l
echo '$ runas 1000 userns-setns         # enter the child user namespace'
runas 1000 userns-setns
echo '$ runas 1000 userns-setns -t      # the same, with a second thread'
runas 1000 userns-setns -t
echo '$ userns-setns -a 1000            # a namespace made by root, entered as 1000'
userns-setns -a 1000
echo '$ runas 1000 userns-setns -k      # only the open fd holds the namespace'
runas 1000 userns-setns -k
