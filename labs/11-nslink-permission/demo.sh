#!/bin/sh
# What lab 11 is about, shown in the guest (used for the book's captures).
echo '$ nslink-peek -s               # as root, uid 1000 peeks'
nslink-peek -s
echo '$ runas 1000:1000 ls /proc/1/ns    # the names of the links of process 1'
runas 1000:1000 ls /proc/1/ns 2>&1
