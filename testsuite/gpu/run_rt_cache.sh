#!/usr/bin/env bash
# run_rt_cache.sh APP TALLY_RUN - cache control by default agrees with ncu:
# dram__bytes_read.sum per launch, from ncu (its default cache control:
# flush) and from tally-run with default settings, each within 2% of ncu's:
#   copy kernel, TG_COPY_MIB=32 (read 32 MiB, write 32 MiB: more than the
#     L2 together): a one-pass metric (one), kernel replay of a 9-metric
#     list (kr, 3 passes), --passes=auto of that list (ar);
#   copy kernel, TG_COPY_MIB=16 (read and write fit in the L2): the
#     issue's list inst + ffma + dram (2 passes) under kernel replay (kr3)
#     and --passes=auto (ar3) against the one-metric run (one16);
#   a kernel that only reads its 32 MiB (mode read; issue 50: CUPTI's
#     kernel replay ran the second pass on a warm L2, dram 34-40% low):
#     one metric (oneR), inst + ffma + dram under kernel replay (krR),
#     --passes=auto (arR).
# Multi-pass lists with a cache-dependent metric are replayed by Tally
# itself with a flush before every pass (cuda_replay_own.c): no word about
# CUPTI's missing flush, rows "flush" (not "flush, pass 1"), and the
# program's memory after each launch is that of one run (mode bump: 3
# launches adding 1 in place leave every element 3, under kr3's list), also
# with 2 threads launching into the one context at once (mode bump2: 2 x 10
# launches leave every element 20, each launch replayed alone:
# cuda_replay_serial.c; 20 launches of bump, each with the same instruction
# count, cache 'flush').
# The same list with --cuda-cache=none is printed, not checked.
# APP is test_rt_multi.  77 without a GPU, ncu or h5py.
set -u
analysis=${TLY_TEST_PYTHONPATH:-$(cd "$(dirname "$0")/../../analysis" && pwd)}   # tally.raw reads the files
app=$1 run=$2
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
app=$(abs "$app") run=$(abs "$run")
. "$(dirname "$0")/gpu_present.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
command -v ncu >/dev/null || { echo "SKIP: no ncu"; exit 77; }
py=
for c in ${TALLY_PYTHON:-} python3 /usr/bin/python3; do "$c" -c "import h5py" 2>/dev/null && { py=$c; break; }; done
[ -n "$py" ] || { echo "SKIP: no python3 with h5py"; exit 77; }
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT; cd "$dir" || exit 1
D=cuda:::dram__bytes_read.sum
M=$D,cuda:::smsp__inst_executed.sum,cuda:::smsp__thread_inst_executed.sum,cuda:::sm__warps_launched.sum
M=$M,cuda:::sm__ctas_launched.sum,cuda:::smsp__inst_executed_op_global_ld.sum,cuda:::l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
M=$M,cuda:::smsp__inst_executed_op_global_st.sum,cuda:::l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
I3=cuda:::smsp__inst_executed.sum,cuda:::smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,$D
ncu_run() {   # ncu_run MIB MODE OUT
  TG_COPY_MIB=$1 timeout 120 ncu --csv --metrics dram__bytes_read.sum mpirun -np 1 "$app" $2 > $3 2> $3.err ||
    TG_COPY_MIB=$1 timeout 120 ncu --csv --target-processes all --metrics dram__bytes_read.sum \
      mpirun -np 1 "$app" $2 > $3 2>> $3.err
}
ncu_run 32 copy ncu.csv
ncu_run 16 copy ncu16.csv
ncu_run 32 read ncuR.csv
for j in 32:copy:one:$D 32:copy:kr:$M 16:copy:one16:$D 16:copy:kr3:$I3 32:read:oneR:$D 32:read:krR:$I3 \
         16:bump:bump3:$I3 16:bump2:bumpT:$I3; do
  mib=${j%%:*} rest=${j#*:} mode=${rest%%:*} rest=${rest#*:}
  TG_COPY_MIB=$mib timeout 120 mpirun -np 1 "$run" --events=${rest#*:} --output-name=${rest%%:*}.h5 --verbose=2 \
    -- "$app" $mode > ${rest%%:*}.log 2>&1 || { cat ${rest%%:*}.log; echo "FAIL: job ${rest%%:*}"; exit 1; }
done
grep -h "^bump:" bump3.log
grep -h "^bump2:" bumpT.log
TG_COPY_MIB=16 timeout 120 mpirun -np 1 "$run" --events=$I3 --cuda-cache=none --output-name=none3.h5 --verbose=2 \
  -- "$app" copy > none3.log 2>&1 || { cat none3.log; echo "FAIL: job none3"; exit 1; }
for j in 32:copy:ar:$M 16:copy:ar3:$I3 32:read:arR:$I3; do
  mib=${j%%:*} rest=${j#*:} mode=${rest%%:*} rest=${rest#*:}
  TG_COPY_MIB=$mib timeout 300 "$run" --passes=auto --events=${rest#*:} --output-name=${rest%%:*}.h5 --verbose=2 \
    -- mpirun -np 1 "$app" $mode > ${rest%%:*}.log 2>&1 || { cat ${rest%%:*}.log; echo "FAIL: job ${rest%%:*}"; exit 1; }
done
# Tally replays these lists itself, flushing before every pass: CUPTI's
# missing flush is not the case, so it is not said
for j in kr kr3 krR bump3 bumpT; do
  if grep -q "no L2 flush between them" $j.log; then cat $j.log; echo "FAIL: $j: replayed by CUPTI"; exit 1; fi
done
PYTHONPATH="$analysis" "$py" - <<'PY'
import csv, sys, tally


def ncu(path, kernel):
    v = [float(r["Metric Value"].replace(",", "")) * {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}.get(r["Metric Unit"], 1)
         for r in csv.DictReader(l for l in open(path) if l.startswith('"'))
         if r.get("Metric Name") == "dram__bytes_read.sum" and r.get("Kernel Name", "").startswith(kernel)]
    if not v:
        print(f"FAIL: no ncu value for the copy kernel in {path}"); print(open(path).read()[:2000]); sys.exit(1)
    return sum(v) / len(v)


def tally_value(name, kernel):
    with tally.raw(name + ".h5") as f:
        rows = [r for r in f["gpu_kernels"][:] if r["kernel"].decode().startswith(kernel)
                and r["metric"].decode() == "dram__bytes_read.sum"]
    v = sum(float(r["total"]) for r in rows) / max(1, sum(int(r["launches"]) for r in rows))
    return rows, v


ok = True
for ref_file, kernel, names, checked in (("ncu.csv", "copy", ("one", "kr", "ar"), True),
                                          ("ncu16.csv", "copy", ("one16", "kr3", "ar3"), True),
                                          ("ncuR.csv", "readsum", ("oneR", "krR", "arR"), True),
                                          ("ncu16.csv", "copy", ("none3",), False)):
    ref = ncu(ref_file, kernel)
    for name in names:
        rows, v = tally_value(name, kernel)
        good = bool(rows) and abs(v - ref) <= 0.02 * ref
        if name.startswith("kr"):   # replayed by Tally, a flush before every pass
            good = good and {r["cache"].decode() for r in rows} == {"flush"}
        if checked:
            ok = ok and good
        tag = ("ok  " if good else "FAIL") if checked else "info"
        print(f"{tag} {name}: dram__bytes_read.sum per launch {v:,.0f}, ncu {ref:,.0f} "
              f"({100 * (v - ref) / ref:+.2f}%), cache {sorted({r['cache'].decode() for r in rows})}, "
              f"replay {sorted({r['replay'].decode() for r in rows})}")
with tally.raw("bumpT.h5") as f:   # 2 threads x 10 launches into one context, each replayed alone
    rows = [r for r in f["gpu_kernels"][:] if r["kernel"].decode().startswith("bump")
            and r["metric"].decode() == "smsp__inst_executed.sum"]
la = sum(int(r["launches"]) for r in rows)
lo, hi = min((float(r["min"]) for r in rows), default=0), max((float(r["max"]) for r in rows), default=-1)
good = la == 20 and lo == hi > 0 and {r["cache"].decode() for r in rows} == {"flush"}
ok = ok and good
print(f"{'ok  ' if good else 'FAIL'} bumpT: {la} launches of bump from 2 threads (want 20), instructions per launch "
      f"{lo:,.0f}..{hi:,.0f} (want one value), cache {sorted({r['cache'].decode() for r in rows})}")
sys.exit(0 if ok else 1)
PY
