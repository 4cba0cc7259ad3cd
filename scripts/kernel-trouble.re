Kernel panic - not syncing
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
Out of memory: Killed process
