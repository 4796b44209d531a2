#!/usr/bin/env python3
"""check_includes.py - the include rules of the tree (docs/DESIGN.md), so
they stay true:

  1. wrappers/ includes nothing of src/core or the components: the library
     through its public headers (papi.h, tally_gpu.h, ...) plus
     src/tally_shared.h and the settings table src/settings/settings.def.
  2. No include cycle between the folders of wrappers/.
  3. wrappers/output/ (the writer) includes no other folder of wrappers/:
     producers register writer modules (output/out_module.h), the runtime
     its host table (output/out_host.h); the records it reads are its own
     (output/out_records.h).
  4. runtime/ includes no other folder of wrappers/ but output/ (the
     records, output/out_records.h, and the writer's interface,
     output/out_host.h): the other parts join its start-up and threads
     through runtime/rt_parts.h.
  5. A header of a wrappers/ folder declares only functions that folder
     defines (or generates): no hub header declaring other folders' work.
  6. src/components/cuda/: component/, groups/ and pcsamp/ include
     common/ and their own folder, never each other; common/ includes none
     of them.
  7. src/components/ includes nothing of src/core or src/api: the public
     headers (src/include), tally_shared.h, the interface
     components/component.h, what the library lends its components
     (src/services/) and the component's own folder.
  8. src/services/ includes only itself, papi.h and tally_shared.h: it
     stands below both the core and the components.

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


PROTO = re.compile(r'^[A-Za-z_][^;{}()#]*?\b(tly_\w+)\s*\([^;{}]*\)\s*(?:__attribute__\(\(.*\)\))?\s*;', re.M | re.S)


def foreign_prototypes(root, folders):
    """(header, function) for each function a wrappers/ header declares
    that no .c file (or generator) of the header's own folder defines."""
    for folder in sorted(folders):
        d = os.path.join(root, 'wrappers', folder)
        own = ''
        for f in sorted(os.listdir(d)):
            if f.endswith(('.c', '.py')):
                with open(os.path.join(d, f), encoding='utf-8', errors='replace') as fh:
                    own += fh.read()
        for f in sorted(os.listdir(d)):
            if not f.endswith('.h'):
                continue
            with open(os.path.join(d, f), encoding='utf-8', errors='replace') as fh:
                text = re.sub(r'/\*.*?\*/', '', fh.read(), flags=re.S)
            for name in PROTO.findall(text):
                if not re.search(r'\b' + name + r'\s*\([^;]*\)\s*\{', own):
                    yield f'wrappers/{folder}/{f}', name


CUDA = 'src/components/cuda'


def cuda_breaches(root):
    """Rule 6: the folders of the cuda component and what they include."""
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


PUBLIC_DIR = 'src/include'


def lib_breaches(root):
    """Rules 7 and 8: what the components and the services include."""
    bad, n = [], 0
    public = set(os.listdir(os.path.join(root, PUBLIC_DIR)))
    for top, allowed in (('src/components', ('components/', 'services/')), ('src/services', ('services/',))):
        for src, name in includes(root, top):
            n += 1
            local = os.path.normpath(os.path.join(os.path.dirname(src), name))
            own = local.startswith(top + '/') and os.path.exists(os.path.join(root, local))
            if top == 'src/components' and name in public:
                continue
            if own or name == 'tally_shared.h' or name == 'papi.h' or name.startswith(allowed):
                continue
            bad.append(f'{src}: includes {name} ({top}/ may include ' + ', '.join(allowed)
                       + ', tally_shared.h and ' + ('the public headers' if top == 'src/components' else 'papi.h')
                       + ' only)')
    return bad, n


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    wr = os.path.join(root, 'wrappers')
    folders = {d for d in os.listdir(wr) if os.path.isdir(os.path.join(wr, d))}
    edges = list(includes(root, 'wrappers'))
    bad = []
    shared = {'tally_shared.h', 'settings/settings.def'}
    for src, name in edges:
        internal = os.path.isfile(os.path.join(root, 'src', name)) and name not in shared
        if name.startswith('core/') or name.startswith('src/') or internal:
            bad.append(f'{src}: includes {name} (use the public headers, tally_shared.h '
                       'or settings/settings.def)')
    graph = folder_graph(edges, folders)
    for cyc in cycles(graph):
        bad.append('include cycle between wrappers/ folders: ' + ' -> '.join(cyc))
    for f in sorted(graph['output']):
        bad.append(f'wrappers/output includes {f}/ (a producer registers a writer module, '
                   'the runtime its host table: output/out_host.h)')
    for f in sorted(graph['runtime'] - {'output'}):
        bad.append(f'wrappers/runtime includes {f}/ (use runtime/rt_parts.h instead)')
    for hdr, name in foreign_prototypes(root, folders):
        bad.append(f'{hdr} declares {name}(), which its folder does not define')
    cuda_bad, ncuda = cuda_breaches(root)
    bad += cuda_bad
    lib_bad, nlib = lib_breaches(root)
    bad += lib_bad
    for line in bad:
        print(line)
    print(f'{len(edges)} includes of {len(folders)} wrappers/ folders, {ncuda} of the cuda component '
          f'and {nlib} of the components and services checked: '
          + ('ok' if not bad else f'{len(bad)} breach(es)'))
    if len(edges) < 50 or 'output' not in folders or nlib < 50:
        print('too few includes found: wrong source root?')
        return 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
