#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What lab 05 is about, shown in the guest (used for the book's captures).
# root unshares a PID namespace, then enters one with setns().
echo '$ pidns                 # unshare(CLONE_NEWPID), then three children'
pidns
echo '$ pidns -l              # the PID namespace links'
pidns -l
echo '$ pidns -s              # setns() into PID namespaces'
pidns -s
