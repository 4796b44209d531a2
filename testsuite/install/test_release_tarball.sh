#!/bin/sh
# The release tarball is reproducible: spack/release.py run in two separate
# clones of this checkout (as on two machines) makes the same bytes for the
# same commit, holds exactly what `git archive` exports (spack/ left out),
# and is named for the version in CMakeLists.txt.
# usage: test_release_tarball.sh SOURCE_DIR PYTHON
set -eu
src=$1 py=$2
command -v git >/dev/null 2>&1 || { echo "SKIP: no git"; exit 77; }
commit=$(git -C "$src" rev-parse --verify HEAD 2>/dev/null) || { echo "SKIP: $src is not a git checkout"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for i in 1 2; do
  git clone -q --no-checkout "$src" "$tmp/clone$i"
  git -C "$tmp/clone$i" -c advice.detachedHead=false checkout -q "$commit"
  mkdir "$tmp/out$i"
  (cd "$tmp/clone$i" && "$py" spack/release.py tarball --ref "$commit" --out "$tmp/out$i") >"$tmp/sha$i"
  cat "$tmp/sha$i"
done
version=$(sed -n 's/^project(Tally VERSION \([0-9.]*\).*/\1/p' "$tmp/clone1/CMakeLists.txt")
tgz=$tmp/out1/tally-$version.tar.gz
[ -f "$tgz" ] || fail "no tally-$version.tar.gz"
cmp "$tgz" "$tmp/out2/tally-$version.tar.gz" || fail "the two clones made different tarballs"
sha=$(sha256sum "$tgz" | cut -d' ' -f1)
grep -q "^$sha " "$tmp/sha1" || fail "printed sha256 is not the file's ($sha)"
# gzip header: no file name (FLG 0), time 0
[ "$(od -An -tx1 -j3 -N5 "$tgz" | tr -d ' \n')" = "0000000000" ] || fail "gzip header carries a name or a time"
# the same files as git archive (the export rules of .gitattributes), same contents
mkdir "$tmp/a" "$tmp/b"
tar -xzf "$tgz" -C "$tmp/a"
git -C "$src" archive --format=tar --prefix="tally-$version/" "$commit" | tar -x -C "$tmp/b"
diff -r "$tmp/a" "$tmp/b" || fail "contents differ from git archive"
[ ! -e "$tmp/a/tally-$version/spack" ] || fail "spack/ is in the tarball"
[ -f "$tmp/a/tally-$version/CMakeLists.txt" ] || fail "no CMakeLists.txt in the tarball"
echo "release tarball tally-$version.tar.gz: $sha, the same from two clones"
