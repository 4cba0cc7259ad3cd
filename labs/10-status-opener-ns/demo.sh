#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What lab 10 is about, shown in the guest (used for the book's captures).
echo '$ status-view                  # as root: child is 0:0 inside, 1000:1000 outside'
status-view
