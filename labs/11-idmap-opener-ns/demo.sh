#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What lab 11 is about, shown in the guest (used for the book's captures).
echo '$ idmap-opener -r | grep uid_map   # as root: siblings A and B'
idmap-opener -r | grep uid_map
echo '$ idmap-opener -w                  # as root: C and its child G'
idmap-opener -w
