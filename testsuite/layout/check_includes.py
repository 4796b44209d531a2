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
    for line in bad:
        print(line)
    print(f'{len(edges)} includes of {len(folders)} wrappers/ folders checked: '
          + ('ok' if not bad else f'{len(bad)} breach(es)'))
    if len(edges) < 50 or 'output' not in folders:
        print('too few includes found: wrong source root?')
        return 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
