#!/bin/sh
# No installed file names the build or the source directory (a Spack stage,
# a developer's checkout): binaries (strings, run paths, debug information),
# scripts (#! lines), CMake and pkg-config files, docs.  The installed
# scripts' #! lines name a Python that exists: the one the build was
# configured with (TALLY_REPORT_PYTHON), never a fixed one.  Without the
# analysis part (TALLY_ENABLE_ANALYSIS=OFF: no tally-report) no script is
# installed, and none may be.
# usage: test_no_build_paths.sh BUILD_DIR SOURCE_DIR PYTHON [ANALYSIS (ON|OFF)]
set -eu
. "$(dirname "$0")/common.sh"
build=$(cd "$1" && pwd -P) src=$(cd "$2" && pwd -P) python=$3 analysis=${4:-ON}
install_moved "$build"
n=$(find "$prefix" -type f | wc -l)
[ "$n" -ge 20 ] || fail "only $n files installed"
bad=0 npy=0
for d in "$build" "$src"; do
  hits=$(grep -rlF -- "$d" "$prefix" || true)
  if [ -n "$hits" ]; then
    echo "files naming $d:"
    echo "$hits"
    bad=1
  fi
done
[ "$bad" = 0 ] || fail "installed files name the build or source directory"
for f in "$prefix"/bin/* "$prefix"/share/tally/*.py; do
  [ -f "$f" ] || continue
  line=$(head -n 1 "$f")
  case $line in
  '#!'*)
    interp=${line#\#!}
    interp=${interp%% *}
    [ -x "$interp" ] || fail "$f: #! names $interp, not an executable"
    case $interp in
    *python*) [ "$interp" = "$python" ] || fail "$f: #! names $interp, configured: $python" ;;
    esac
    npy=$((npy + 1))
    ;;
  esac
done
case $analysis in
OFF) [ "$npy" = 0 ] || fail "$npy scripts with a #! line installed without the analysis part" ;;
*) [ "$npy" -ge 1 ] || fail "no installed script with a #! line" ;;
esac
echo "$n files, none names $build or $src; $npy scripts run $python"
