#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What lab 04 is about, shown in the guest (used for the book's captures).
echo '$ runas 1000 selfmap          # uid_map, setgroups=deny, gid_map, as a container tool does'
runas 1000 selfmap
echo '$ runas 1000 selfmap uid_map="0 1000 1" gid_map="0 1000 1"    # setgroups still allowed'
runas 1000 selfmap uid_map="0 1000 1" gid_map="0 1000 1"
echo '$ runas 1000 selfmap uid_map="0 1001 1"                       # somebody else'"'"'s uid'
runas 1000 selfmap uid_map="0 1001 1"
