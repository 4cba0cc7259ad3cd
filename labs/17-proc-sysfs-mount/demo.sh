#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What lab 17 is about, shown in the guest (used for the book's captures).
# uid 1000 makes four children, each root of a new user namespace with a new
# mount namespace, and each tries to mount proc or sysfs.
echo '$ mkdir -p /tmp/lab17/proc /tmp/lab17/sys /tmp/lab17/dev'
mkdir -p /tmp/lab17/proc /tmp/lab17/sys /tmp/lab17/dev
echo '$ runas 1000 procsys-mount /tmp/lab17'
runas 1000 procsys-mount /tmp/lab17
