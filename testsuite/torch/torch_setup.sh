# torch_setup.sh - what the run_torch_*.sh tests start with, sourced with
# their arguments (TALLY_RUN [PYTHON]): sets run, py (PYTHON, else
# $TALLY_PYTHON, else python3) and here (the tests' folder); exits 77
# without a GPU or a PyTorch that sees it, or without the Python modules
# listed in torch_needs (set before sourcing, comma-separated); makes dir,
# a scratch folder removed at exit.
run=$1 py=${2:-${TALLY_PYTHON:-python3}}
# the runs start in $dir: a relative TALLY_RUN path is made absolute
case $run in /*) ;; */*) run=$PWD/$run ;; esac
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../gpu/gpu_present.sh"
"$py" -c "import sys, torch${torch_needs:+, $torch_needs}; sys.exit(0 if torch.cuda.is_available() else 1)" \
  2>/dev/null ||
  { echo "SKIP: $py has no PyTorch that sees a GPU${torch_needs:+, or lacks $torch_needs}"; exit 77; }
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
