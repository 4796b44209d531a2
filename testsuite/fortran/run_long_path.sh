#!/bin/sh
# run_long_path.sh PROGRAM WORKDIR - run a copy of PROGRAM from a directory
# whose absolute path is over 300 characters (Spack's stage paths are long:
# argv(0), PAPI_get_executable_info and the Fortran bindings must not cut
# them into a fixed buffer).
set -eu
prog=$1 base=$2
seg=dir-of-fifty-characters-for-a-long-stage-path-0000
dir=$base/long
while [ ${#dir} -lt 300 ]; do dir=$dir/$seg; done
rm -rf "$base/long"
mkdir -p "$dir"
cp "$prog" "$dir/"
exe=$dir/$(basename "$prog")
echo "running from a path of ${#exe} characters"
cd "$dir"
rc=0
"$exe" || rc=$?
rm -rf "$base/long"
exit $rc
