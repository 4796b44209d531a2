#!/usr/bin/env bash
# run_omp_test.sh STYLE APP TALLY_RUN CHECKER SOURCE - omp_sites (GCC OpenMP,
# libgomp) under one launch style with no options at all, then the checks.
#   STYLE: serial (tally-run -- app), per-rank (mpirun tally-run -- app),
#          outer (tally-run -- mpirun app), preload (mpirun -x LD_PRELOAD):
#          measured inside libgomp, which stays the program's runtime;
#          nolibomp (per-rank with TALLY_LIBOMP pointing at a directory with
#          no libomp: one message, the program keeps libgomp, measured);
#          libomp (per-rank with --libomp=auto: run on LLVM's libomp, OMPT)
set -u
style=$1 app=$2 run=$3 checker=$4 src=$5
/usr/bin/python3 -c "import h5py" 2>/dev/null || { echo "python3-h5py missing"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=2
export OMPI_MCA_rmaps_base_oversubscribe=1
unset TALLY_LIBOMP LD_LIBRARY_PATH
# the program must really be on GNU libgomp to begin with
ldd "$app" | grep -q 'libgomp\.so\.1' || { echo "$app does not use libgomp"; exit 1; }
dir=$(mktemp -d) ; trap 'rm -rf "$dir"' EXIT
cd "$dir"
pre=$(dirname "$run")/libtally-preload.so
asan=$(ldd "$pre" 2>/dev/null | awk '$1 ~ /^libasan\.so/ {print $3 " "}')
mpi=(mpirun --oversubscribe -np 2)
nranks=2 mode=measured
case $style in
  serial)   nranks=1; timeout 120 "$run" -- "$app" 2>err.txt ;;
  per-rank) timeout 120 "${mpi[@]}" "$run" -- "$app" 2>err.txt ;;
  outer)    timeout 120 "$run" -- "${mpi[@]}" "$app" 2>err.txt ;;
  preload)  timeout 120 "${mpi[@]}" -x LD_PRELOAD="$asan$pre" "$app" 2>err.txt ;;
  nolibomp) mkdir nolibomp
            timeout 120 "${mpi[@]}" -x TALLY_LIBOMP="$dir/nolibomp" "$run" -- "$app" 2>err.txt ;;
  libomp)   mode=libomp
            [ -e "$(dirname "$run")/libomp-as-libgomp/libgomp.so.1" ] || { echo "SKIP: Tally was built without LLVM libomp"; exit 77; }
            timeout 120 "${mpi[@]}" "$run" --libomp=auto -- "$app" 2>err.txt ;;
esac
rc=$?
cat err.txt
[ $rc -eq 0 ] || { echo "job failed ($rc)"; exit 1; }
files=(tally-*.h5)
[ ${#files[@]} -eq 1 ] && [ -e "${files[0]}" ] || { echo "want one file, got: ${files[*]}"; exit 1; }
# no word about the OpenMP runtime, but where TALLY_LIBOMP names no libomp
n=$(grep -c -i "libomp\|libgomp\|not measured" err.txt)
want=0; [ $style = nolibomp ] && want=1
[ "$n" -eq $want ] || { echo "want $want message(s) about the OpenMP runtime, got $n"; exit 1; }
[ $style = nolibomp ] && { grep -q "names no libomp.*measured inside it" err.txt || { echo "wrong message"; exit 1; }; }
exec /usr/bin/python3 "$checker" "${files[0]}" $nranks $mode "$src" . "$app"
