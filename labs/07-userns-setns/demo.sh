#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What lab 07 is about, shown in the guest (used for the book's captures).
# uid 1000 makes a user namespace; in it a maker unshares UTS and network
# namespaces, and its sibling, root of the same user namespace, joins them.
echo '$ runas 1000 setns-sibling uts net     # join what the sibling made'
runas 1000 setns-sibling uts net
echo '$ runas 1000 setns-sibling -H uts      # go back to the guest UTS namespace'
runas 1000 setns-sibling -H uts
echo '$ runas 1000 setns-sibling -o uts      # uid 1000 itself, outside the userns'
runas 1000 setns-sibling -o uts
echo '$ setns-sibling -o uts                 # real root, outside'
setns-sibling -o uts
