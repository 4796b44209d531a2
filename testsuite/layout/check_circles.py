#!/usr/bin/env python3
"""check_circles.py - no circles between files (docs/DESIGN.md, "No
circles between files").  A file here is a unit: a source and its header
(src/core/lib.c and src/core/lib.h are the unit src/core/lib).  Unit A
points at unit B when a file of A includes a file of B, or when an object
file of A refers to a symbol that B's object defines (nm: A's undefined
symbol, B's defined one, both objects in the same build target).  A circle
is a strongly connected component of more than one unit in a target's
graph; each is printed with its units and one witness per edge (the
symbol, or the include line).  A lower file reaches a higher one only
through a hook: a struct of function pointers the higher file registers,
or a generated list (a source of the build tree) of such structs; a
generated file's references to data are therefore not edges, its calls
are.

The allow-list (circles_known.txt) names circles still being taken apart,
one per line as its units separated by spaces.  A circle whose units all
lie within one entry is printed as known; any other circle fails the
check, and so does an entry within which no circle remains (remove it).

Usage:
  check_circles.py <source root> <build dir> [--allow FILE] [--nm NM]
  check_circles.py --self-test [--cc CC] [--nm NM]
Exit 0 when every circle is known and every entry still found, else 1."""
import os
import sys

from layout_result import finish
from circles_graph import object_units, include_edges, symbol_edges, circles, describe

MIN_OBJECTS = 100


def read_allow(path):
    """Entries of the allow-list: (line number, frozenset of units)."""
    out = []
    if not path:
        return out
    with open(path, encoding='utf-8') as fh:
        for n, line in enumerate(fh, 1):
            line = line.split('#', 1)[0].split()
            if line:
                out.append((n, frozenset(line)))
    return out


def judge(found, allow, allow_name, built=None):
    """Lines for every circle found and every stale entry; count of breaches.
    built: the units of the build's objects (an entry none of whose units
    were built, a CUDA file in a build without CUDA, is not stale)."""
    lines, bad, used = [], 0, set()
    for units, targets, edges in found:
        entry = next((n for n, e in allow if units <= e), None)
        head = ('known circle (%s:%d)' % (allow_name, entry) if entry
                else 'CIRCLE not on the allow-list')
        if entry is None:
            bad += 1
        else:
            used.add(entry)
        lines.append('%s: %d files, target %s' % (head, len(units), ', '.join(sorted(targets))))
        lines.extend('    ' + e for e in describe(units, edges))
    for n, e in allow:
        if n not in used and built is not None and not e & built:
            lines.append('allow-list entry %s:%d: none of its files built here' % (allow_name, n))
        elif n not in used:
            bad += 1
            lines.append('STALE allow-list entry %s:%d: no circle within %s (remove the line)'
                         % (allow_name, n, ' '.join(sorted(e))))
    return lines, bad


def analyse(root, build, nm):
    """Circles of every target of the build tree: [(units, targets, edges)]."""
    targets = object_units(root, build)
    incl = include_edges(root, build)
    seen, nobj, built = {}, 0, set()
    compiled = {u for objs in targets.values() for u in objs.values()}
    reach = {}   # unit -> the units it includes
    for (a, b) in incl:
        reach.setdefault(a, []).append(b)
    for target, objs in sorted(targets.items()):
        nobj += len(objs)
        units = with_headers(set(objs.values()), reach, compiled)
        built |= units
        edges = {k: v for k, v in incl.items() if k[0] in units and k[1] in units}
        for k, v in symbol_edges(objs, nm).items():
            edges.setdefault(k, v)
        for comp in circles(units, edges):
            key = frozenset(comp)
            if key in seen:
                seen[key][1].add(target)
            else:
                sub = {k: v for k, v in edges.items() if k[0] in key and k[1] in key}
                seen[key] = (key, {target}, sub)
    return sorted(seen.values(), key=lambda c: sorted(c[0])), nobj, built


def with_headers(units, reach, compiled):
    """units and the header-only units (no object file in any target) their
    includes reach, directly or through other headers: a circle through a
    header alone is a circle too (issue 46: a.c<->b.h went unseen)."""
    out, todo = set(units), list(units)
    while todo:
        for b in reach.get(todo.pop(), ()):
            if b not in out and b not in compiled:
                out.add(b)
                todo.append(b)
    return out


def arg(argv, name, default=None):
    return argv[argv.index(name) + 1] if name in argv else default


def main(argv):
    nm = arg(argv, '--nm', 'nm')
    if '--self-test' in argv:
        from circles_selftest import self_test
        return self_test(arg(argv, '--cc', 'cc'), nm, analyse, read_allow, judge)
    root, build = argv[1], argv[2]
    allow_path = arg(argv, '--allow')
    found, nobj, built = analyse(root, build, nm)
    allow = read_allow(allow_path)
    lines, bad = judge(found, allow, os.path.basename(allow_path or 'none'), built)
    summary = ('%d object files read, %d circle(s) found, %d known, %d breach(es)'
               % (nobj, len(found), len(found) - sum(1 for l in lines if l.startswith('CIRCLE')), bad))
    for line in lines:
        print(line)
    return finish(['%d breach(es): see above' % bad] if bad else [], nobj, MIN_OBJECTS, summary)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
