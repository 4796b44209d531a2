#!/usr/bin/env python3
"""check_directions.py - the parts of Tally and the one direction between
any two of them (docs/DESIGN.md, "The parts and their directions").

A part is a set of folders (PARTS, the longest prefix names a file's
part).  Part A points at part B when a file of A includes a file of B or
calls (or uses data of) a symbol B defines: the same file graph as
check_circles.py (circles_graph.py: quoted includes of the sources, nm of
each build target's objects).  Every edge between two parts must be in
ALLOWED; each other pair is a breach, printed once with one witness (the
file, and the symbol or the include line).  ALLOWED itself has no circle
between parts, so the parts stand in one order; a part that must reach a
higher one does it through a hook that the higher one registers (a
struct of function pointers, or a generated list of them: a generated
file's references to data are registrations, not edges).

Usage:
  check_directions.py <source root> <build dir> [--known FILE] [--nm NM]
  check_directions.py --self-test [--cc CC] [--nm NM]
The known list (directions_known.txt) names forbidden directions still
being turned round, one "from to" per line: printed as known, not failed;
an entry whose edge is gone fails (remove it).
Exit 0 when every edge between parts is allowed or known, else 1."""
import os
import sys

from layout_result import finish
from circles_graph import object_units, include_edges, symbol_edges, circles

MIN_OBJECTS = 100

# part: folders (and files) of it; a file belongs to the longest prefix.
PARTS = {
    'api': ('src/api/',),
    'core': ('src/core/',),
    'components': ('src/components/',),
    'services': ('src/services/',),
    'settings': ('src/settings/',),
    'shared': ('src/tally_shared.h', 'src/include/'),
    'utils': ('src/utils/',),
    'fortran': ('fortran/',),
    'runtime': ('wrappers/runtime/',),
    'producers': ('wrappers/mpi/', 'wrappers/ompt/', 'wrappers/gomp/', 'wrappers/nvtx/',
                  'wrappers/regions/', 'wrappers/gpu/', 'wrappers/trace/', 'wrappers/sampling/'),
    'passes': ('wrappers/passes/',),
    'output': ('wrappers/output/',),
    'format': ('wrappers/output/schema.def',),
    'launcher': ('wrappers/tally-run/',),
    'analysis': ('analysis/',),
}

# (from, to): the directions allowed.  The library, from the top: api ->
# core -> components -> services; the runtime's parts, from the top:
# passes -> producers -> runtime -> output -> format.  The runtime's
# parts reach the library through its public API (api, shared), never
# core; the settings table and tally_shared.h serve every part.
ALLOWED = {
    ('api', 'core'), ('api', 'components'), ('api', 'services'), ('api', 'settings'), ('api', 'shared'),
    ('core', 'components'), ('core', 'services'), ('core', 'settings'), ('core', 'shared'),
    ('components', 'services'), ('components', 'settings'), ('components', 'shared'),
    ('services', 'shared'),
    ('settings', 'shared'), ('settings', 'services'),
    ('utils', 'api'), ('utils', 'shared'), ('utils', 'settings'), ('utils', 'services'),
    ('fortran', 'api'), ('fortran', 'shared'),
    ('passes', 'producers'), ('passes', 'runtime'), ('passes', 'output'),
    ('producers', 'runtime'), ('producers', 'output'),
    ('runtime', 'output'),
    ('output', 'format'),
    ('launcher', 'settings'), ('launcher', 'shared'), ('launcher', 'services'),
    ('analysis', 'format'), ('analysis', 'shared'),
}
# The runtime's parts and the library's public API.
for _p in ('passes', 'producers', 'runtime', 'output'):
    ALLOWED |= {(_p, 'api'), (_p, 'shared'), (_p, 'settings'), (_p, 'services')}
# The public API functions of a component (tally_gpu_*, declared in
# src/include/) are defined in its folder: calls into it are the public API.
ALLOWED |= {('producers', 'components'), ('utils', 'components')}


def part_of(unit):
    """The part of a unit (src/core/lib, build:wrappers/mpi/mpi_gen), or None."""
    path = unit[len('build:'):] if unit.startswith('build:') else unit
    best = None
    for part, prefixes in PARTS.items():
        for p in prefixes:
            hit = path.startswith(p) if p.endswith('/') else path == os.path.splitext(p)[0]
            if hit and (best is None or len(p) > best[1]):
                best = (part, len(p))
    return best[0] if best else None


def part_edges(root, build, nm):
    """{(part, part): (unit, unit, witness)} over includes and every
    target's symbols; the number of objects read."""
    targets = object_units(root, build)
    edges, nobj = {}, 0
    for (a, b), w in sorted(include_edges(root, build).items()):
        add(edges, a, b, w)
    for _target, objs in sorted(targets.items()):
        nobj += len(objs)
        for (a, b), w in sorted(symbol_edges(objs, nm).items()):
            add(edges, a, b, w)
    return edges, nobj


def add(edges, a, b, witness):
    pa, pb = part_of(a), part_of(b)
    if pa and pb and pa != pb and (pa, pb) not in edges:
        edges[(pa, pb)] = (a, b, witness)


def read_known(path):
    """Entries of the known list: [(line number, (part, part))]."""
    out = []
    if not path:
        return out
    with open(path, encoding='utf-8') as fh:
        for n, line in enumerate(fh, 1):
            words = line.split('#', 1)[0].split()
            if len(words) == 2:
                out.append((n, tuple(words)))
    return out


def judge(edges, allowed, known):
    """One line per forbidden edge (with its witness) and per stale known
    entry; the count of breaches.  A forbidden edge on the known list
    (directions still being turned round) is printed as known."""
    lines, bad, used = [], 0, set()
    for (pa, pb), (a, b, w) in sorted(edges.items()):
        if (pa, pb) in allowed:
            continue
        entry = next((n for n, e in known if e == (pa, pb)), None)
        if entry is None:
            bad += 1
            lines.append('FORBIDDEN %s -> %s: %s -> %s: %s' % (pa, pb, a, b, w))
        else:
            used.add(entry)
            lines.append('known (line %d) %s -> %s: %s -> %s: %s' % (entry, pa, pb, a, b, w))
    for n, (pa, pb) in known:
        if n not in used:
            bad += 1
            lines.append('STALE known entry, line %d: no edge %s -> %s is left (remove the line)' % (n, pa, pb))
    return lines, bad


def table_circles(allowed):
    """Circles of the table itself (it must have none)."""
    nodes = {p for e in allowed for p in e}
    return circles(nodes, {e: '' for e in allowed})


def arg(argv, name, default=None):
    return argv[argv.index(name) + 1] if name in argv else default


def main(argv):
    nm = arg(argv, '--nm', 'nm')
    if '--self-test' in argv:
        from directions_selftest import self_test
        return self_test(arg(argv, '--cc', 'cc'), nm, part_edges, judge, table_circles, ALLOWED, read_known)
    bad = ['the table of directions has a circle: %s' % ' '.join(c) for c in table_circles(ALLOWED)]
    edges, nobj = part_edges(argv[1], argv[2], nm)
    lines, nbad = judge(edges, ALLOWED, read_known(arg(argv, '--known')))
    for (pa, pb), (a, b, w) in sorted(edges.items()):
        if (pa, pb) in ALLOWED:
            print('ok %s -> %s (e.g. %s -> %s: %s)' % (pa, pb, a, b, w))
    for line in lines:
        print(line)
    if nbad:
        bad.append('%d breach(es): see above' % nbad)
    summary = ('%d object files read, %d part-to-part direction(s) found, %d breach(es)'
               % (nobj, len(edges), nbad))
    return finish(bad, nobj, MIN_OBJECTS, summary)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
