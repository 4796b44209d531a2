#!/bin/sh
# /init of the PMU test bed guest (busybox sh).  Mounts the kernel file
# systems, opens the PMU to unprivileged-style use, runs each line of
# /tally/tests.txt ("name<TAB>timeout<TAB>command...") and powers off.
# The host runner parses the @@pmuvm lines; everything else is streamed.
/bin/busybox mkdir -p /proc /sys /dev /tmp /bb
/bin/busybox --install -s /bb
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sys /sys
/bin/busybox mount -t devtmpfs dev /dev 2>/dev/null
/bin/busybox mount -t tmpfs tmp /tmp
/bin/busybox mkdir -p /dev/shm && /bin/busybox mount -t tmpfs shm /dev/shm
export PATH=/tally/bin:/usr/sbin:/usr/bin:/sbin:/bin:/bb
export LD_LIBRARY_PATH=/tally/lib
export HOME=/tmp TMPDIR=/tmp
# Debian's default (3) refuses perf_event_open to everyone but root
# with CAP_PERFMON and disables PAPI's component; 1 is the kernel default.
echo 1 > /proc/sys/kernel/perf_event_paranoid
# Let user space read the counters (mrs PMEVCNTR<n>_EL0 / PMCCNTR_EL0).
echo 1 > /proc/sys/kernel/perf_user_access 2>/dev/null
echo "@@pmuvm boot $(cat /proc/sys/kernel/perf_event_paranoid) user_access=$(cat /proc/sys/kernel/perf_user_access 2>/dev/null)"
cd /tmp
tab=$(printf '\t')
while IFS="$tab" read -r name limit cmd; do
	[ -z "$name" ] && continue
	echo "@@pmuvm begin $name"
	eval "timeout $limit $cmd" 2>&1
	echo "@@pmuvm end $name rc=$?"
done < /tally/tests.txt
echo "@@pmuvm done"
sync
/bin/busybox poweroff -f
