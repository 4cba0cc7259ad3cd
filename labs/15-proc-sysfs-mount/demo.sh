#!/bin/sh
# What lab 15 is about, shown in the guest (used for the book's captures).
# uid 1000 makes four children, each root of a new user namespace with a new
# mount namespace, and each tries to mount proc or sysfs.
echo '$ mkdir -p /tmp/lab15/proc /tmp/lab15/sys /tmp/lab15/dev'
mkdir -p /tmp/lab15/proc /tmp/lab15/sys /tmp/lab15/dev
echo '$ runas 1000 procsys-mount /tmp/lab15'
runas 1000 procsys-mount /tmp/lab15
