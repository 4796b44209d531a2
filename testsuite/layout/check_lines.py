#!/usr/bin/env python3
"""check_lines.py - no source file of the tree is longer than 600 lines
(C, headers, CUDA, Fortran, Python, shell, CMake, templates): a longer one
holds more than one idea and is split (docs/DESIGN.md).

Build trees (a folder holding CMakeCache.txt), hidden folders (.git, a
developer's scratch trees), data (test corpora)
and prose (Markdown, text) are not sources.  A file without a suffix counts
when it starts with '#!' (a script).

Usage: check_lines.py <source root> [limit].  Exit 0 when every file is
within the limit, 1 with one line per longer file."""
import os
import sys

from layout_result import finish

SUFFIXES = ('.c', '.h', '.cu', '.def', '.inc', '.f', '.F', '.f90', '.F90', '.py', '.sh',
            '.cmake', '.in', '.map')
NAMES = ('CMakeLists.txt', 'Makefile')
SKIP = ('.git', '__pycache__', 'corpus')


def is_source(path, name):
    if name in NAMES or name.endswith(SUFFIXES):
        return True
    if '.' in name:
        return False
    try:
        with open(path, 'rb') as f:
            return f.read(2) == b'#!'
    except OSError:
        return False


def sources(root):
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in SKIP and not x.startswith('.')
                         and not os.path.exists(os.path.join(d, x, 'CMakeCache.txt')))
        for name in sorted(files):
            path = os.path.join(d, name)
            if not os.path.islink(path) and is_source(path, name):
                yield path


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 600
    n, longest, bad = 0, (0, ''), []
    for path in sources(root):
        with open(path, 'rb') as f:
            lines = f.read().count(b'\n')
        n += 1
        longest = max(longest, (lines, os.path.relpath(path, root)))
        if lines > limit:
            bad.append(f'{os.path.relpath(path, root)}: {lines} lines (limit {limit})')
    return finish(bad, n, 200, f'{n} source files checked, the longest {longest[1]} ({longest[0]} lines): '
                  + ('ok' if not bad else f'{len(bad)} over {limit} lines'))


if __name__ == '__main__':
    sys.exit(main())
