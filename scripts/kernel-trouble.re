# SPDX-License-Identifier: GPL-2.0
# What a kernel's log says when the kernel is in trouble: Python regular
# expressions (searched for anywhere in a line), one a line, each in the
# [section] above it; a line starting with '#' is a comment. The one list:
# scripts/ktap.py reads it (ktap.py trouble, ktap.py grep SECTION), and
# run-qemu.sh, make check, the grader and the conformance run read a log
# through it; tests/test_interfaces.py fails on a pattern spelled out in
# another script. ktap.py trouble (make check's "kernel said", the grader's
# OOPS and its detail) shows the lines of [panic], [oops] and [oom].

# The kernel stopped: run-qemu.sh's PANIC.
[panic]
Kernel panic - not syncing

# The kernel hit a bug, a fault, a warning or a stall (it may live on).
[oops]
kernel BUG at
BUG: 
Oops: 
general protection fault
WARNING: 
RIP: 
Call Trace:
double fault
stack segment
invalid opcode: 
watchdog: BUG: soft lockup
INFO: task .* blocked for more than

# The OOM killer killed a process (a check, most often).
[oom]
Out of memory: Killed process

# Every line the OOM killer prints, the memory cgroup's included: the
# grader's console fact, which tells a check killed by it from one killed
# otherwise. Not shown as trouble: [oom] says it in one line.
[oom-any]
Out of memory
oom-kill
oom_reaper
