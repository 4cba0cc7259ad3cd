#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What lab 15 is about, shown in the guest (used for the book's captures).
# root makes a container's namespaces (a user namespace with 1000 ids, a
# network namespace, a PID namespace); the container's root then uses the
# rest of the network stack, and tries the same on the host's namespaces.
echo '$ netns-stack       # root of a new userns (ids 0-999), new netns and pidns'
netns-stack
echo '$ netns-stack -U    # root of a new userns, the host netns and pidns'
netns-stack -U
echo '$ ls -1 /sys/class/net   # the host'
ls -1 /sys/class/net
