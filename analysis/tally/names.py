"""Names a person can read: the short form of region, kernel and call-site
names that text, Markdown, HTML and the plots show by default.

  region     'omp parallel @ f (a.c:22) in g (a.c:70) in main (a.c:90)'
             -> 'omp parallel @ f (a.c:22)' (the innermost frame)
  kernel     demangled (binutils' c++filt, one process for all names),
             template arguments, parameters and return type dropped:
             '_ZN2at6native...' -> 'at::native::vectorized_elementwise_kernel'
  site       MPI call-site frames -> the innermost frame

Short names stay distinct: names whose short forms collide get ' #' and 4
hex digits of a hash of the whole name (stable across runs and files).
CSV, JSON, Hatchet and --full-names keep whole names.
"""
import hashlib
import os
import re
import shutil
import subprocess

from . import settings

MAX = 90   # the longest short kernel name (before a collision tag)
INLINE = re.compile(r"^(.*?\([^()]*:\d+\)) in .+$", re.S)


def region(name):
    """The innermost frame of a region name (the inline chain cut)."""
    name = str(name)
    m = INLINE.match(name)
    return m.group(1) if m else name


def site(name):
    """The innermost frame of an MPI call site ('f (a.c:1) < g (b.c:2)'...)."""
    name = str(name)
    m = re.match(r"^(.*?\([^()]*:\d+\))", name)
    return m.group(1) if m else name


def _cxxfilt():
    """c++filt in an absolute PATH directory, or None."""
    dirs = [d for d in (settings.env_raw("PATH") or "").split(os.pathsep) if os.path.isabs(d)]
    return shutil.which("c++filt", path=os.pathsep.join(dirs + ["/usr/bin"]))


def demangle(names):
    """Demangled forms of names (same order); names c++filt does not know stay."""
    names = [str(n) for n in names]
    tool = _cxxfilt()
    mangled = [n for n in names if n.startswith("_Z") and "\n" not in n]
    if not tool or not mangled:
        return names
    try:
        out = subprocess.run([tool], input="\n".join(mangled) + "\n", capture_output=True, text=True,
                             timeout=60, check=False).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return names
    table = dict(zip(mangled, out)) if len(out) == len(mangled) else {}
    return [table.get(n, n) for n in names]


def _outside_brackets(text):
    """text with every balanced <...>, (...) and [...] group removed
    ('(anonymous namespace)' kept as '{anon}')."""
    text = text.replace("(anonymous namespace)", "{anon}")
    out, depth = [], 0
    for ch in text:
        if ch in "<([":
            depth += 1
        elif ch in ">)]" and depth:
            depth -= 1
        elif not depth:
            out.append(ch)
    return "".join(out)


def kernel(demangled):
    """A demangled kernel name without return type, templates and parameters."""
    s = _outside_brackets(str(demangled)).strip()
    s = s.split()[-1] if s.split() else str(demangled)   # the return type goes
    if len(s) <= MAX:
        return s
    parts, kept = s.split("::"), []
    while parts and len("::".join([parts[-1]] + kept)) <= MAX - 3:
        kept.insert(0, parts.pop())
    if kept:   # the innermost scopes
        return "…::" + "::".join(kept)
    return s[:MAX - 26] + "…" + s[-25:]   # both ends of one long word (its start says most)


def _tag(full):
    return hashlib.sha1(full.encode("utf-8", "replace")).hexdigest()[:4]


def distinct(fulls, shorten):
    """full name -> short name, the short names all distinct."""
    fulls = list(dict.fromkeys(str(f) for f in fulls))
    short = {f: shorten(f) for f in fulls}
    count = {}
    for s in short.values():
        count[s] = count.get(s, 0) + 1
    return {f: (s if count[s] == 1 or s == f else f"{s} #{_tag(f)}") for f, s in short.items()}


def kernels(fulls):
    """full kernel name -> short, distinct name."""
    fulls = list(dict.fromkeys(str(f) for f in fulls))
    dem = dict(zip(fulls, demangle(fulls)))
    return distinct(fulls, lambda f: kernel(dem[f]))


def _frames(name):
    """[innermost 'label @ f (a.c:1)', 'g', 'main', ...]: a region name's inline
    chain, the outer frames by function name alone."""
    name = str(name)
    m = INLINE.match(name)
    if not m:
        return [name]
    outer = re.split(r" in (?=[^()]*\([^()]*:\d+\))", name[len(m.group(1)):].removeprefix(" in "))
    return [m.group(1)] + [re.sub(r" \([^()]*:\d+\)$", "", f) for f in outer if f]


def regions(fulls):
    """full region name -> short, distinct name: the innermost frame, and
    as many callers (by function name) as it takes to tell names apart
    ('omp parallel @ f (a.c:3) in stage_a'); a hash tag when even the
    whole chain does not."""
    fulls = list(dict.fromkeys(str(f) for f in fulls))
    frames = {f: _frames(f) for f in fulls}
    depth = {f: 1 for f in fulls}
    for _ in range(64):
        short = {f: " in ".join(frames[f][:depth[f]]) for f in fulls}
        seen = {}
        for f, v in short.items():
            seen.setdefault(v, []).append(f)
        grow = [f for group in seen.values() if len(group) > 1 for f in group if depth[f] < len(frames[f])]
        if not grow:
            break
        for f in grow:
            depth[f] += 1
    return distinct(fulls, short.get)


def sites(fulls):
    """full call-site text -> short, distinct name."""
    return distinct(fulls, site)


def region_labels(table, ids, full=False):
    """Distinct labels of region ids (table: the regions table, id, parent, name):
    each region's (short) name, preceded by as many of its ancestors'
    names as it takes to tell apart regions of one name in different
    places ('step / omp barrier wait')."""
    whole = dict(zip(table["id"].astype(int), table["name"].astype(str)))
    parent = dict(zip(table["id"].astype(int), table["parent"].astype(int)))
    short = regions(whole.values())
    shown = whole if full else {rid: short[n] for rid, n in whole.items()}

    def chain(rid):
        out, seen = [], set()
        while rid in shown and rid not in seen and parent.get(rid, -1) >= 0:   # the root goes
            seen.add(rid)
            out.insert(0, shown[rid])
            rid = parent[rid]
        return out or [shown.get(rid, str(rid))]
    chains = {int(i): chain(int(i)) for i in ids}
    depth = {i: 1 for i in chains}
    for _ in range(64):
        label = {i: " / ".join(c[-depth[i]:]) for i, c in chains.items()}
        dup = {i for i in chains if list(label.values()).count(label[i]) > 1 and depth[i] < len(chains[i])}
        if not dup:
            break
        for i in dup:
            depth[i] += 1
    return [label[int(i)] for i in ids]
