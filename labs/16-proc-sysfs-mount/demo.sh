#!/bin/sh
# What lab 16 is about, shown in the guest (used for the book's captures).
# uid 1000 makes four children, each root of a new user namespace with a new
# mount namespace, and each tries to mount proc or sysfs.
echo '$ mkdir -p /tmp/lab16/proc /tmp/lab16/sys /tmp/lab16/dev'
mkdir -p /tmp/lab16/proc /tmp/lab16/sys /tmp/lab16/dev
echo '$ runas 1000 procsys-mount /tmp/lab16'
runas 1000 procsys-mount /tmp/lab16
