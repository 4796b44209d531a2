#!/usr/bin/env python3
"""check_includes.py - the include rules of the tree (docs/DESIGN.md), so
they stay true:

  1. wrappers/ includes nothing of src/core: the library through its public
     headers (papi.h, tally_gpu.h, ...) plus src/tally_shared.h alone.
  2. No include cycle between the folders of wrappers/.
  3. wrappers/output/ (the writer) includes no producer folder: producers
     register writer modules (output/out_module.h) instead.
  4. runtime/ includes no other folder of wrappers/: optional parts join
     its start-up through runtime/rt_parts.h.
  5. src/components/cuda/: component/, groups/ and pcsamp/ include
     common/ and their own folder, never each other; common/ includes none
     of them.

Usage: check_includes.py <source root>.  Exit 0 when every rule holds,
1 with one line per breach."""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCE = ('.c', '.h', '.def')


def includes(root, top):
    """(file relative to root, included name) for every quoted include."""
    for d, _, files in os.walk(os.path.join(root, top)):
        for f in sorted(files):
            if f.endswith(SOURCE):
                path = os.path.join(d, f)
                with open(path, encoding='utf-8', errors='replace') as fh:
                    for name in INCLUDE.findall(fh.read()):
                        yield os.path.relpath(path, root), name


def folder_graph(edges, folders):
    graph = {f: set() for f in folders}
    for src, name in edges:
        here = src.split('/')[1]
        there = name.split('/')[0] if '/' in name else None
        if there in folders and there != here:
            graph[here].add(there)
    return graph


def cycles(graph):
    """Each cycle once, as a list of folders."""
    found, seen = [], set()

    def walk(node, path):
        for nxt in sorted(graph[node]):
            if nxt in path:
                cyc = path[path.index(nxt):]
                key = frozenset(cyc)
                if key not in seen:
                    seen.add(key)
                    found.append(cyc + [nxt])
            elif len(path) < len(graph):
                walk(nxt, path + [nxt])
    for start in sorted(graph):
        walk(start, [start])
    return found


CUDA = 'src/components/cuda'


def cuda_breaches(root):
    """Rule 5: the folders of the cuda component and what they include."""
    bad, n = [], 0
    if not os.path.isdir(os.path.join(root, CUDA)):
        return bad, n
    for src, name in includes(root, CUDA):
        here = src.split('/')[3]
        n += 1
        local = os.path.normpath(os.path.join(os.path.dirname(src), name))
        target = 'src/' + name if name.startswith('components/') else local
        if not target.startswith(CUDA + '/') or not os.path.exists(os.path.join(root, target)):
            continue
        there = target.split('/')[3]
        if there != here and (here == 'common' or there != 'common'):
            bad.append(f'{src}: includes {name} ({CUDA}/{here} may include common/ and itself only)')
    return bad, n


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    wr = os.path.join(root, 'wrappers')
    folders = {d for d in os.listdir(wr) if os.path.isdir(os.path.join(wr, d))}
    edges = list(includes(root, 'wrappers'))
    bad = []
    for src, name in edges:
        if name.startswith('core/') or name.startswith('src/'):
            bad.append(f'{src}: includes {name} (use the public headers or tally_shared.h)')
    graph = folder_graph(edges, folders)
    for cyc in cycles(graph):
        bad.append('include cycle between wrappers/ folders: ' + ' -> '.join(cyc))
    for f in sorted(graph['output'] - {'runtime'}):
        bad.append(f'wrappers/output includes producer folder {f}/ (register a writer module instead)')
    for f in sorted(graph['runtime']):
        bad.append(f'wrappers/runtime includes {f}/ (use runtime/rt_parts.h instead)')
    cuda_bad, ncuda = cuda_breaches(root)
    bad += cuda_bad
    for line in bad:
        print(line)
    print(f'{len(edges)} includes of {len(folders)} wrappers/ folders and {ncuda} of the cuda component checked: '
          + ('ok' if not bad else f'{len(bad)} breach(es)'))
    if len(edges) < 50 or 'output' not in folders:
        print('too few includes found: wrong source root?')
        return 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
