#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What lab 12 is about, shown in the guest (used for the book's captures).
echo '$ nslink-peek -s               # as root, uid 1000 peeks'
nslink-peek -s
