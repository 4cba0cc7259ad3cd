#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make grade-all ENGINE=slurm on a real Slurm: a single-node cluster of
# Debian's slurmctld, slurmd and munged, started here from a configuration
# under build/test-slurm (no system file is read or changed: SLURM_CONF and
# munged's options name everything) and stopped at the end. A class of 30
# (scripts/class.sh) is graded through a Slurm job array, then on this
# machine with JOBS=2; the two summary.csv must be equal row for row.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/lib.sh"
. "$here/lib.sh"
[ "$(id -u)" -eq 0 ] || die "make test-slurm runs Slurm's daemons as root: run it as root"
for p in slurmctld slurmd munged sbatch squeue; do
	command -v "$p" >/dev/null || die "$p not found: scripts/deps.sh --slurm"
done
need_kernel_tree
n=${SLURM_CLASS:-30}
S=$BUILD/test-slurm
export NO_COLOR=1 GRADE_DIR=$BUILD/test/grade
export GRADE_BOOT_TIMEOUT=${GRADE_BOOT_TIMEOUT:-60}
rm -rf -- "$S"
mkdir -p "$S/state" "$S/spool" "$S/munge"
chmod 700 "$S/munge"

# munged: its own key, socket, pid, log and seed
dd if=/dev/urandom of="$S/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$S/munge/munge.key"
sock=$S/munge/munge.socket
munged --force --key-file="$S/munge/munge.key" --socket="$sock" --pid-file="$S/munge/munged.pid" \
	--log-file="$S/munge/munged.log" --seed-file="$S/munge/munged.seed" ||
	die "munged did not start (see $S/munge/munged.log)"

host=$(hostname -s)
mem=$(awk '/^MemTotal:/ { print int($2 / 1024) - 512 }' /proc/meminfo)
# ports of their own, far from Slurm's usual 6817/6818
cat >"$S/slurm.conf" <<EOF
ClusterName=userns-labs-test
SlurmctldHost=$host
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MaxArraySize=10001
NodeName=$host CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=grade Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$S/slurm.conf
stop() {
	local f
	for f in "$S/slurmd.pid" "$S/slurmctld.pid" "$S/munge/munged.pid"; do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	sleep 1
}
trap stop EXIT
slurmctld -i -f "$SLURM_CONF" || die "slurmctld did not start (see $S/slurmctld.log)"
slurmd -f "$SLURM_CONF" || die "slurmd did not start (see $S/slurmd.log)"
for _ in $(seq 30); do
	sinfo -h -o %T 2>/dev/null | grep -qx idle && break
	sleep 1
done
t_expect "slurm: its one machine is idle and up (sinfo)" idle "$(sinfo -h -o %T 2>/dev/null | head -1)"

class=$S/class
"$TOP/scripts/class.sh" "$class" "$n" 7 >/dev/null 2>&1 || die "the class was not made"
start=$(date +%s)
rc=0
out=$(GRADE_ENGINE=slurm GRADE_JOBS=2 GRADE_OUT=$S/results-slurm "$TOP/scripts/grade.sh" --all "$class" 1 2>&1) || rc=$?
info "slurm: $n graded in $(($(date +%s) - start)) s"
t_expect "slurm: grade-all ENGINE=slurm ends well" 0 "$rc"
t_grep "slurm: one job array" "Slurm job [0-9]+: $n task\\(s\\), 2 at a time" "$out"
t_grep "slurm: progress as tasks end" "\\[$n/$n\\] " "$out"
start=$(date +%s)
out=$(GRADE_JOBS=2 GRADE_OUT=$S/results-local "$TOP/scripts/grade.sh" --all "$class" 1 2>&1) || rc=$?
info "local: $n graded in $(($(date +%s) - start)) s"
t_expect "slurm: summary.csv equals the local run's, row for row" "" \
	"$(diff "$S/results-slurm/summary.csv" "$S/results-local/summary.csv")"
t_expect "slurm: the class's results ($n rows)" "$((n + 1))" "$(wc -l <"$S/results-slurm/summary.csv")"
out=$(GRADE_ENGINE=slurm GRADE_OUT=$S/results-slurm "$TOP/scripts/grade.sh" --all "$class" 1 2>&1)
t_expect "slurm: a second run resumes: nothing is submitted" "" "$(printf '%s\n' "$out" | grep 'Slurm job')"
kgit worktree prune
t_summary slurm
