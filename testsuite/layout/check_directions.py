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
import re
import sys

from layout_result import finish
from circles_graph import object_units, include_edges, nm_symbols, circles

MIN_OBJECTS = 100
OWN_NAME = re.compile(r'(tly_|TLY_|tally_|PAPI_|PAPIF_|papif_|_papi)')

# part: folders (and files) of it; a file belongs to the longest prefix.
PARTS = {
    'api': ('src/api/',),
    'core': ('src/core/',),
    'components': ('src/components/',),
    'services': ('src/services/',),
    'settings': ('src/settings/',),
    # headers and tables below every part: what the library shares with
    # the runtime, the public headers, the settings table (tally_shared.h
    # makes its enum)
    'shared': ('src/tally_shared.h', 'src/include/', 'src/settings/settings.def'),
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
    ('services', 'shared'), ('services', 'settings'),
    ('settings', 'shared'),
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
    """{(part, part): (unit, unit, witness)} over includes and symbols;
    the number of objects read.  A symbol an object needs is looked up in
    its own target first (check_circles.py's edges), else in every other
    target: the preload library links the core's objects from
    libtally_internal.a, a target of its own, and its calls into the
    library are edges too (Tally's own names only: the preload's
    interposers of libc's, MPI's or libgomp's functions are not calls
    into it)."""
    targets = object_units(root, build)
    edges, nobj = {}, 0
    for (a, b), w in sorted(include_edges(root, build).items()):
        add(edges, a, b, w)
    allobjs = {o: u for objs in targets.values() for o, u in objs.items()}
    nobj = len(allobjs)
    syms = nm_symbols(list(allobjs), nm)
    defs = {}
    for obj, (defined, _) in syms.items():
        for sym, kind in defined.items():
            defs.setdefault(sym, []).append((obj, kind))
    for _target, objs in sorted(targets.items()):
        for obj in sorted(objs):
            a = objs[obj]
            for sym in sorted(syms[obj][1]):
                where = defs.get(sym, [])
                own = [d for d in where if d[0] in objs]
                if not own and not OWN_NAME.match(sym):
                    continue    # another target's interposer of a system call (sigaction)
                for o, kind in own or where:
                    if a.startswith('build:') and kind == 'uses data':
                        continue    # a generated list of hooks: registration, not a call
                    add(edges, a, allobjs[o], '%s %s' % (kind, sym))
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
