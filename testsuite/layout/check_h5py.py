#!/usr/bin/env python3
"""check_h5py.py - test scripts read Tally files through the reader
(tally.read, tally.raw; issue 40): no file of testsuite/ imports or uses
h5py, in a Python script or in Python inline in a shell script, except the
writers of damaged or crafted files listed in ALLOWED (each says why at
its import).  A shell line that only asks whether a Python has h5py
(`$PY -c "import h5py"`, to skip with 77) is a probe, not a reader, and
passes.  Fails naming each file and line.

Usage: check_h5py.py <source root> [--self-test]."""
import os
import re
import sys

from layout_result import finish

# Writers of files the reader must refuse or survive, which tally cannot write.
ALLOWED = {
    'testsuite/report/gen_tally_file.py',      # synthetic files of every schema version, enum payloads
    'testsuite/report/test_report.py',         # writes a plain HDF5 file that is no Tally file
    'testsuite/safety/crafted_files.py',       # crafted hostile files (bad types, huge dims)
    'testsuite/safety/fuzz_reader.py',         # byte-mutated files for the reader's fuzzing
    'testsuite/safety/probe_crash.py',         # makes h5py.File crash in the probe child, on purpose
    'testsuite/safety/run_reader_fuzz.sh',     # sets schema_version to values no writer stores
    'testsuite/layout/check_h5py.py',          # this check: its self-test plants h5py lines
}
# an import of h5py anywhere on a line (alone, in a list, aliased, after
# `;` or `if x:`), __import__/import_module of it, or a use of h5py.NAME
USE = re.compile(r'\bimport\s+(?:[\w.]+(?:\s+as\s+\w+)?\s*,\s*)*h5py\b|\bfrom\s+h5py\b'
                 r'|\b(?:__import__|import_module)\(\s*["\']h5py\b|\bh5py\s*\.\s*\w')
PROBE = re.compile(r'-c(?:\s+|["\']?\s*,\s*)["\']import [\w, ]*h5py[\w, ]*["\']')
COMMENT = re.compile(r'"""(?:[^\\]|\\.)*?"""|\'\'\'(?:[^\\]|\\.)*?\'\'\'|#[^\n]*', re.S)


def blank(m):
    """A comment or docstring as spaces (newlines kept, so lines still count)."""
    return re.sub(r'[^\n]', ' ', m.group(0))


def breaches(rel, text):
    """The lines of one file that import or use h5py."""
    text = COMMENT.sub(blank, PROBE.sub(lambda m: ' ' * len(m.group(0)), text))
    return [f'{rel}:{text.count(chr(10), 0, m.start()) + 1}: uses h5py (read through tally.read or tally.raw)'
            for m in USE.finditer(text)]


def self_test():
    """A planted reader is found; a probe and a comment are not."""
    bad = breaches('x.py', 'import os\nimport h5py\n') + breaches('y.sh', 'python3 - <<E\nf = h5py.File(p)\nE\n')
    # aliased and listed imports (issue 46: `import h5py as H` went unseen)
    for i, line in enumerate(('import h5py as H', 'import os, h5py as H', 'import numpy as np, h5py',
                              'import os; import h5py as H', 'if 1: import h5py as H', 'H = __import__("h5py")',
                              'H = importlib.import_module("h5py")')):
        bad += breaches(f'a{i}.py', f'import os\n{line}\nf = H.File(p)\n')
    ok = breaches('z.sh', '$PY -c "import h5py, pandas" || exit 77\n# h5py.File in a comment\n')
    good = len(bad) == 9 and not ok and bad[0].startswith('x.py:2:') and bad[1].startswith('y.sh:2:') \
        and all(b.startswith(f'a{i}.py:2:') for i, b in enumerate(bad[2:]))
    print('self-test:', 'ok' if good else f'failed: {bad} {ok}')
    return 0 if good else 1


def main():
    if '--self-test' in sys.argv:
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    bad, seen = [], 0
    for d, _, files in os.walk(os.path.join(root, 'testsuite')):
        for f in sorted(files):
            if not f.endswith(('.py', '.sh')):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, root)
            seen += 1
            if rel in ALLOWED:
                continue
            with open(path, encoding='utf-8', errors='replace') as fh:
                bad += breaches(rel, fh.read())
    stale = [a for a in sorted(ALLOWED) if not os.path.exists(os.path.join(root, a))]
    bad += [f'{a}: listed in ALLOWED but absent' for a in stale]
    return finish(bad, seen, 50, f'{seen} test scripts checked: ' +
                  ('ok' if not bad else f'{len(bad)} use(s) of h5py outside the reader'))


if __name__ == '__main__':
    sys.exit(main())
