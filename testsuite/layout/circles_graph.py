"""circles_graph.py - the file graph check_circles.py judges: units of
object files (from the build tree), include edges (from the sources),
symbol edges (from nm), and its strongly connected components."""
import os
import re
import subprocess

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCE = ('.c', '.h', '.inc', '.def', '.cu')
TOPS = ('src', 'wrappers', 'fortran', 'testsuite')
UNDEFINED = set('Uwv')


def unit(path, root, build):
    """src/core/lib.c -> src/core/lib; a generated file -> build:<path>."""
    path = os.path.normpath(path)
    stem = os.path.splitext(path)[0]
    if stem.startswith(build + os.sep):
        return 'build:' + os.path.relpath(stem, build)
    return os.path.relpath(stem, root)


def depfile_source(obj):
    """The source an object was compiled from: the first prerequisite of
    the compiler's depfile (obj.d), relative to the directory it ran in."""
    try:
        with open(obj + '.d', encoding='utf-8', errors='replace') as fh:
            text = fh.read(8192)
    except OSError:
        return None
    deps = text.replace('\\\n', ' ').split(':', 1)
    words = deps[1].split() if len(deps) > 1 else []
    return words[0] if words else None


def object_units(root, build):
    """{target: {object path: unit}} for every CMake target of the build tree."""
    root, build = os.path.realpath(root), os.path.realpath(build)
    out = {}
    for d, dirs, files in os.walk(build):
        dirs[:] = sorted(x for x in dirs if x != 'CMakeScratch' and not x.startswith('CMakeTmp'))
        if '/CMakeFiles/' not in d + '/' or '.dir' not in d:
            continue
        head, _, tail = d.partition('/CMakeFiles/')
        tname, _, inner = tail.partition('/')
        if not tname.endswith('.dir'):
            continue
        target = os.path.join(os.path.relpath(head, build), tname[:-4])
        for f in files:
            if not f.endswith('.o'):
                continue
            obj = os.path.join(d, f)
            src = depfile_source(obj)
            if src:
                src = os.path.join(head, src)
            else:   # CMake's own naming: <target>.dir/<path from the source dir, .. as __>.o
                rel = os.path.join(inner, f[:-2]).replace('__', '..')
                src = os.path.join(root, os.path.relpath(head, build), rel)
            src = os.path.realpath(src)
            if os.path.exists(src):   # an object of a removed source is left over
                out.setdefault(target, {})[obj] = unit(src, root, build)
    return out


def source_files(root, build):
    for top in TOPS:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(x for x in dirs if not x.startswith('.')
                             and not os.path.exists(os.path.join(d, x, 'CMakeCache.txt')))
            for f in sorted(files):
                if f.endswith(SOURCE):
                    yield os.path.join(d, f)


def resolver(files):
    """name -> the file an include of it means: the including file's own
    folder first, else the tree's file of that path sharing the longest
    folder prefix with the includer."""
    by_tail = {}
    for p in files:
        parts = p.split(os.sep)
        for i in range(len(parts)):
            by_tail.setdefault('/'.join(parts[i:]), []).append(p)

    def resolve(src, name):
        own = os.path.normpath(os.path.join(os.path.dirname(src), name))
        if os.path.isfile(own):
            return own
        cands = by_tail.get(os.path.normpath(name), [])
        if not cands:
            return None
        return max(cands, key=lambda c: len(os.path.commonprefix([c, src])))
    return resolve


def include_edges(root, build):
    """{(unit, unit): witness} for every quoted include between two units."""
    root, build = os.path.realpath(root), os.path.realpath(build)
    files = list(source_files(root, build))
    resolve = resolver(files)
    edges = {}
    for src in files:
        with open(src, encoding='utf-8', errors='replace') as fh:
            names = INCLUDE.findall(fh.read())
        a = unit(src, root, build)
        for name in names:
            dst = resolve(src, name)
            if dst is None:
                continue
            b = unit(dst, root, build)
            if a != b:
                edges.setdefault((a, b), 'includes "%s" (%s)' % (name, os.path.relpath(src, root)))
    return edges


def nm_symbols(objs, nm):
    """{object: (defined {symbol: kind}, undefined set)} from nm -A -P."""
    out = {o: ({}, set()) for o in objs}
    objs = sorted(objs)
    for i in range(0, len(objs), 200):
        text = subprocess.run([nm, '-A', '-P'] + objs[i:i + 200], check=True,
                              capture_output=True, text=True).stdout
        for line in text.splitlines():
            obj, _, rest = line.rpartition(': ')
            f = rest.split()
            if len(f) < 2 or obj not in out:
                continue
            sym, t = f[0], f[1]
            if t in UNDEFINED:
                out[obj][1].add(sym)
            elif t.isupper():
                out[obj][0][sym] = 'calls' if t in 'TW' else 'uses data'
    return out


def symbol_edges(objs, nm):
    """{(unit, unit): witness} for the target's objects {object: unit}."""
    syms = nm_symbols(list(objs), nm)
    where = {}
    for obj, (defined, _) in syms.items():
        for s, kind in defined.items():
            where.setdefault(s, []).append((objs[obj], kind))
    edges = {}
    for obj, (defined, undefined) in syms.items():
        a = objs[obj]
        for s in sorted(undefined):
            for b, kind in where.get(s, []):
                if a.startswith('build:') and kind == 'uses data':
                    continue    # a generated list of hooks: registration, not a call
                if b != a and (a, b) not in edges:
                    edges[(a, b)] = '%s %s' % (kind, s)
    return edges


def circles(nodes, edges):
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    succ = {n: [] for n in nodes}
    for a, b in edges:
        if a in succ and b in succ:
            succ[a].append(b)
    index, low, on, stack, out, count = {}, {}, set(), [], [], [0]
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(succ[start])))]
        index[start] = low[start] = count[0]
        count[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            n, it = work[-1]
            nxt = next(it, None)
            if nxt is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[n])
                if low[n] == index[n]:
                    comp = []
                    while True:
                        x = stack.pop()
                        on.discard(x)
                        comp.append(x)
                        if x == n:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
            elif nxt not in index:
                index[nxt] = low[nxt] = count[0]
                count[0] += 1
                stack.append(nxt)
                on.add(nxt)
                work.append((nxt, iter(sorted(succ[nxt]))))
            elif nxt in on:
                low[n] = min(low[n], index[nxt])
    return out


def describe(units, edges):
    """One line per edge inside a circle: 'a -> b: calls sym'."""
    lines = ['files: ' + ' '.join(sorted(units))]
    for (a, b), w in sorted(edges.items()):
        lines.append('%s -> %s: %s' % (a, b, w))
    return lines
