#!/usr/bin/env bash
# run_output_safety.sh APP TALLY_RUN - output files are created safely
# Links planted at the file's name are never followed, an
# existing file is never replaced unless asked, an absolute
# TALLY_OUTPUT_NAME is used as it is, the fallback directory is private
# (0700, checked), files are never world-writable, "written" is printed only
# when the file is in place, the application's exit status is kept, and
# the job directory of a job without MPI is 0700 and never a planted link.
set -u
analysis=$(cd "$(dirname "$0")/../../analysis" && pwd)   # tally.raw reads the files (issue 40)
app=$1 run=$2
/usr/bin/python3 -c "import h5py" 2>/dev/null || { echo "python3-h5py missing"; exit 77; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail=0
bad() { echo "FAILED: $*"; fail=1; }
h5ok() { PYTHONPATH="$analysis" /usr/bin/python3 -c "import sys, tally; f=tally.raw(sys.argv[1]); assert f.attrs['schema_version']>=1" "$1" 2>/dev/null; }
# runs the app under tally-run expecting exit status 7; stderr to err.txt
measure() { "$run" "$@" -- "$app" 7 >/dev/null 2>err.txt; local rc=$?; [ $rc = 7 ] || bad "exit status $rc, want 7"; }

echo victim > victim; echo victim2 > victim2; mkdir out
# 1. links planted at every name an attacker could guess
ln -s "$dir/victim" out/run.h5.tmp
ln -s "$dir/victim2" out/run.h5
measure --output-dir=out --output-name=run.h5
[ "$(cat victim)" = victim ] && [ "$(cat victim2)" = victim2 ] || bad "a link target was written"
[ -L out/run.h5 ] || bad "the planted link was replaced"
h5ok out/run.1.h5 || bad "out/run.1.h5 is not a complete file"
grep -q "run.h5 exists; writing .*run.1.h5 instead" err.txt || bad "no message about the numbered name"
grep -q "written to .*out/run.1.h5" err.txt || bad "'written' does not name the file written"
ls out/*.tmp 2>/dev/null | grep -v '^out/run.h5.tmp$' && bad "temporary files left"

# 2. an existing file: kept; TALLY_OUTPUT_REPLACE=1 replaces it
echo mine > out/keep.h5
measure --output-dir=out --output-name=keep.h5
[ "$(cat out/keep.h5)" = mine ] || bad "existing file replaced"
h5ok out/keep.1.h5 || bad "keep.1.h5 missing"
measure --output-dir=out --output-name=keep.h5
h5ok out/keep.2.h5 || bad "keep.2.h5 missing (second numbered name)"
TALLY_OUTPUT_REPLACE=1 measure --output-dir=out --output-name=keep.h5
h5ok out/keep.h5 || bad "TALLY_OUTPUT_REPLACE=1 did not replace keep.h5"

# 3. an absolute TALLY_OUTPUT_NAME is used as it is
mkdir abs
measure --output-dir=out --output-name="$dir/abs/job.h5"
h5ok abs/job.h5 || bad "absolute TALLY_OUTPUT_NAME not written there"

# 4. never world-writable, whatever the umask
(umask 0; measure --output-dir=out --output-name=mode.h5)
m=$(stat -c %a out/mode.h5); [ $(( 8#$m & 2 )) = 0 ] || bad "mode $m is world-writable"

# 5. an output directory that cannot be used: the private fallback directory
mkdir tmp; export TMPDIR=$dir/tmp
measure --output-dir="$dir/none" --output-name=fb.h5
u=$(id -u)
h5ok "tmp/tally-$u/fb.h5" || bad "not written to the private directory"
[ "$(stat -c %a "tmp/tally-$u")" = 700 ] || bad "private directory mode $(stat -c %a "tmp/tally-$u")"
grep -q "writing to $dir/tmp/tally-$u instead" err.txt || bad "no fallback message"
# ... planted as a link to a directory open to all: refused, nothing written anywhere
rm -rf "tmp/tally-$u"; mkdir -m 1777 shared; ln -s "$dir/shared" "tmp/tally-$u"
measure --output-dir="$dir/none" --output-name=fb2.h5
[ -z "$(ls shared)" ] || bad "wrote through a planted private-directory link: $(ls shared)"
grep -q "not a private directory" err.txt || bad "planted private directory not reported"
grep -q "written to" err.txt && bad "'written' printed though nothing was written"
unset TMPDIR

# 6. the final rename fails: the data stays in .tmp and "written" is not printed
mkdir -p out/busy.h5/x
TALLY_OUTPUT_REPLACE=1 measure --output-dir=out --output-name=busy.h5
grep -q "cannot rename" err.txt || bad "rename failure not reported"
grep -q "written to" err.txt && bad "'written' printed though the rename failed"
ls out/busy.h5.*.tmp >/dev/null 2>&1 || bad "the data is not kept in the .tmp file"
# ... said once, where the data stays (issue 47: also "no measurement file written")
grep -q "no measurement file written" err.txt && bad "'no measurement file written' though the data stays: $(cat err.txt)"
[ "$(grep -c '^tally' err.txt)" = 1 ] || bad "the rename failure said in $(grep -c '^tally' err.txt) lines, want one"

# 7. a job without MPI (ranks from the launcher's environment): its job
# directory is 0700 whatever the umask, while a piece waits in it; one
# planted there as a link to a directory open to all is not used
slurm() { SLURM_JOB_ID=4242 SLURM_STEP_ID=0 SLURM_PROCID=0 SLURM_NTASKS=2 measure --output-dir=out "$@"; }
(umask 0; slurm --output-name=j1.h5)
p=$(ls -d out/j1.*.parts 2>/dev/null | head -1)
[ -n "$p" ] && [ "$(stat -c %a "$p")" = 700 ] || bad "job directory '$p' mode $(stat -c %a "$p" 2>/dev/null), want 700"
[ -n "$p" ] && [ -f "$p/rank00000.h5" ] || bad "the piece of rank 0 is not in the job directory"
mkdir -m 777 open; ln -s "$dir/open" "${p/j1/j2}"
slurm --output-name=j2.h5
[ -z "$(ls open)" ] || bad "a piece written through a planted job directory link: $(ls open)"
grep -q "is not a directory of this user closed to others" err.txt || bad "planted job directory not reported"
cat err.txt
[ $fail = 0 ] && echo "all output-safety checks passed"
exit $fail
