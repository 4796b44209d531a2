#!/usr/bin/env python3
# Copyright Tally developers. See the LICENSE file of Tally for details.
#
# SPDX-License-Identifier: BSD-3-Clause
"""release.py - the release procedure of Tally (docs/release.md).

  release.py tarball [--ref REF] [--out DIR]
      tally-<version>.tar.gz of the commit REF (default HEAD), byte for byte
      the same on any machine; prints "<sha256>  <path>".
  release.py bump VERSION
      sets project(Tally VERSION ...) in CMakeLists.txt.
  release.py record VERSION SHA256
      adds (or replaces) version("VERSION", sha256=...) in the Spack package.
  release.py release VERSION
      bump, commit "Release VERSION", tarball of that commit, record, commit
      the package: the two commits of a release.

The tarball depends only on the files of REF (those `git archive` exports:
.gitattributes leaves spack/ out, since the package records the sha256) and
on the version in REF's CMakeLists.txt: git writes the tar stream, and this
script rewrites it with Python's tarfile (fixed time, owner and order, no
commit id) and gzip (level 9, no name, time 0), so neither the git version
(whose own gzip has changed) nor the commit id (a rebase, a merge that keeps
the tree) changes the bytes.
"""
import argparse
import gzip
import hashlib
import io
import os
import re
import subprocess
import sys
import tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "spack", "spack_repo", "tally", "packages", "tally", "package.py")
MTIME = 1704067200  # 2024-01-01 00:00:00 UTC, every member's time
VERSION_RE = re.compile(r"^project\(Tally VERSION ([0-9]+\.[0-9]+\.[0-9]+)\b", re.M)


def git(*args, binary=False):
    out = subprocess.run(["git", "-C", ROOT, *args], check=True, stdout=subprocess.PIPE).stdout
    return out if binary else out.decode()


def version_at(ref):
    m = VERSION_RE.search(git("show", f"{ref}:CMakeLists.txt"))
    if not m:
        sys.exit(f"release.py: no project(Tally VERSION x.y.z) in {ref}:CMakeLists.txt")
    return m.group(1)


def normalized_tar(raw, prefix):
    """git's tar stream rewritten: members sorted by name, fixed time, owner
    root, modes 0755/0644, no pax global header (git's commit id)."""
    out = io.BytesIO()
    src = tarfile.open(fileobj=io.BytesIO(raw), mode="r:")
    members = sorted(
        (m for m in src.getmembers() if m.name.startswith(prefix)), key=lambda m: m.name
    )
    with tarfile.open(fileobj=out, mode="w:", format=tarfile.PAX_FORMAT) as dst:
        for m in members:
            n = tarfile.TarInfo(m.name)
            n.mtime, n.uid, n.gid, n.uname, n.gname = MTIME, 0, 0, "root", "root"
            data = None
            if m.isdir():
                n.type, n.mode = tarfile.DIRTYPE, 0o755
            elif m.issym():
                n.type, n.mode, n.linkname = tarfile.SYMTYPE, 0o777, m.linkname
            elif m.isfile():
                n.mode = 0o755 if m.mode & 0o111 else 0o644
                n.size = m.size
                data = src.extractfile(m)
            else:
                sys.exit(f"release.py: unexpected member {m.name}")
            dst.addfile(n, data)
    return out.getvalue()


def tarball(ref, outdir):
    commit = git("rev-parse", "--verify", f"{ref}^{{commit}}").strip()
    name = f"tally-{version_at(commit)}"
    raw = git("archive", "--format=tar", f"--prefix={name}/", commit, binary=True)
    tar = normalized_tar(raw, f"{name}/")
    gz = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=gz, mtime=0) as f:
        f.write(tar)
    path = os.path.join(outdir, f"{name}.tar.gz")
    if not os.path.isdir(outdir):
        sys.exit(f"release.py: --out {outdir}: no such directory")
    with open(path, "wb") as f:
        f.write(gz.getvalue())
    sha = hashlib.sha256(gz.getvalue()).hexdigest()
    print(f"{sha}  {path}")
    return sha, commit


def bump(version):
    path = os.path.join(ROOT, "CMakeLists.txt")
    text = open(path).read()
    new, n = re.subn(
        r"^(project\(Tally VERSION )[0-9.]+", rf"\g<1>{version}", text, count=1, flags=re.M
    )
    if n != 1:
        sys.exit("release.py: no project(Tally VERSION ...) line in CMakeLists.txt")
    with open(path, "w") as f:
        f.write(new)


def record(version, sha, commit=None):
    text = open(PACKAGE).read()
    line = f'    version("{version}", sha256="{sha}")'
    if commit:
        # the id as the checkout resolves it: a typed id that names no
        # commit is refused, never recorded
        try:
            full = git("rev-parse", "--verify", "-q", f"{commit}^{{commit}}").strip()
        except subprocess.CalledProcessError:
            sys.exit(f"release.py: --commit {commit}: no such commit in this checkout")
        ref = full[:12]
        line = f"    # {version}: commit {ref} (spack/release.py tarball --ref {ref})\n" + line
    v = re.escape(version)
    old = re.compile(rf'^(    # {v}: commit .*\n)?    version\("{v}", sha256="[0-9a-f]+"\)$', re.M)
    if old.search(text):
        text = old.sub(lambda _: line, text, count=1)
    else:
        anchor = '    version("main", branch="main")\n'
        if anchor not in text:
            sys.exit(f"release.py: no {anchor.strip()} in {PACKAGE}")
        text = text.replace(anchor, anchor + line + "\n", 1)
    with open(PACKAGE, "w") as f:
        f.write(text)


def release(version, outdir):
    if git("status", "--porcelain", "--untracked-files=no").strip():
        sys.exit("release.py: the work tree has changes; commit them first")
    bump(version)
    git("commit", "-q", "-m", f"Release {version}", "CMakeLists.txt")
    sha, commit = tarball("HEAD", outdir)
    record(version, sha, commit)
    git(
        "commit",
        "-q",
        "-m",
        f"spack: tally {version} (sha256 {sha[:12]}, commit {commit[:12]})",
        PACKAGE,
    )


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("tarball")
    t.add_argument("--ref", default="HEAD")
    t.add_argument("--out", default=".")
    b = sub.add_parser("bump")
    b.add_argument("version")
    r = sub.add_parser("record")
    r.add_argument("version")
    r.add_argument("sha256")
    r.add_argument("--commit")
    rel = sub.add_parser("release")
    rel.add_argument("version")
    rel.add_argument("--out", default=".")
    a = p.parse_args(argv)
    for v in (getattr(a, "version", None),):
        if v is not None and not re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", v):
            sys.exit(f"release.py: version {v!r} is not x.y.z")
    if a.cmd == "tarball":
        tarball(a.ref, a.out)
    elif a.cmd == "bump":
        bump(a.version)
    elif a.cmd == "record":
        if not re.fullmatch(r"[0-9a-f]{64}", a.sha256):
            sys.exit("release.py: sha256 must be 64 hex digits")
        record(a.version, a.sha256, a.commit)
    else:
        release(a.version, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
