#!/usr/bin/env python3
"""check_release_versions.py SOURCE_DIR [--self-test]

Every release version in the Spack package resolves: the commit its comment
names exists in the checkout under that id, spack/release.py makes from it a
tarball whose sha256 is the one in version(...), and docs/install.md's
version table names the same commit and sha256.  --self-test runs the check
on a copy of package.py with one commit id changed and fails unless that
copy is refused.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

PKG = "spack/spack_repo/tally/packages/tally/package.py"
DOC = "docs/install.md"
COMMENT = re.compile(r"^\s*# (\d+\.\d+\.\d+): commit ([0-9a-f]{7,40}) ")
VERSION = re.compile(r'^\s*version\("(\d+\.\d+\.\d+)", sha256="([0-9a-f]{64})"\)')
ROW = re.compile(r"^\| `(\d+\.\d+\.\d+)` \| ([0-9a-f]{7,40}) \| ([0-9a-f]{8})…([0-9a-f]{7,9}) \|")


def releases(pkg_text):
    """[(version, commit, sha256)] from the comment + version() pairs."""
    out, pending = [], None
    for line in pkg_text.splitlines():
        m = COMMENT.match(line)
        if m:
            pending = m.groups()
            continue
        m = VERSION.match(line)
        if m:
            if not pending or pending[0] != m.group(1):
                raise SystemExit("FAIL: version %s has no '# %s: commit <id>' line above it"
                                 % (m.group(1), m.group(1)))
            out.append((m.group(1), pending[1], m.group(2)))
            pending = None
    return out


def tarball_sha(src, commit, tmp):
    run = subprocess.run([sys.executable, os.path.join(src, "spack", "release.py"), "tarball",
                          "--ref", commit, "--out", tmp], cwd=src, capture_output=True, text=True)
    if run.returncode != 0:
        return None, (run.stderr or run.stdout).strip().splitlines()[-1:]
    return run.stdout.split()[0], None


def check(src, pkg_path, doc_path):
    errors = []
    rel = releases(open(pkg_path).read())
    if not rel:
        return ["no release version found in " + pkg_path]
    rows = {}
    for line in open(doc_path).read().splitlines():
        m = ROW.match(line)
        if m:
            rows[m.group(1)] = m.groups()[1:]
    with tempfile.TemporaryDirectory() as tmp:
        for version, commit, sha in rel:
            full = subprocess.run(["git", "-C", src, "rev-parse", "--verify", "-q", commit + "^{commit}"],
                                  capture_output=True, text=True).stdout.strip()
            if not full.startswith(commit):
                errors.append("%s: commit %s does not exist in the checkout" % (version, commit))
                continue
            got, err = tarball_sha(src, commit, tmp)
            if got != sha:
                errors.append("%s: release.py makes %s from %s, package.py says %s %s"
                              % (version, got, commit, sha, err or ""))
            row = rows.get(version)
            if not row:
                errors.append("%s: not in %s's version table" % (version, DOC))
            elif row[0] != commit or not sha.startswith(row[1]) or not sha.endswith(row[2]):
                errors.append("%s: %s's row (%s, %s…%s) differs from package.py (%s, %s)"
                              % (version, DOC, row[0], row[1], row[2], commit, sha))
            print("%s: commit %s, sha256 %s%s" % (version, commit, got,
                                                  "" if got == sha else " (MISMATCH)"))
    return errors


def main():
    src = os.path.abspath(sys.argv[1])
    if subprocess.run(["git", "-C", src, "rev-parse", "HEAD"], capture_output=True).returncode:
        print("FAILED: %s is not a git checkout (CMake registers this test only in one)" % src)
        return 1
    pkg, doc = os.path.join(src, PKG), os.path.join(src, DOC)
    if "--self-test" in sys.argv[2:]:
        with tempfile.TemporaryDirectory() as tmp:
            bad = os.path.join(tmp, "package.py")
            text = open(pkg).read()
            m = next(COMMENT.match(l) for l in text.splitlines() if COMMENT.match(l))
            wrong = m.group(2)[:-1] + ("0" if m.group(2)[-1] != "0" else "1")
            shutil.copy(pkg, bad)
            open(bad, "w").write(text.replace(m.group(2), wrong))
            if not check(src, bad, doc):
                print("FAIL: a package.py naming commit %s (no such id) was accepted" % wrong)
                return 1
            print("self-test: a wrong commit id is refused")
    errors = check(src, pkg, doc)
    for e in errors:
        print("FAIL: " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
