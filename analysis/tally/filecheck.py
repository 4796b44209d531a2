"""What no real run produces, refused before it costs anything.

The Tally writer makes plain HDF5: one regular file, hard links only,
contiguous tables stored inside the file, a region tree whose parents come
first.  A crafted file can claim anything else: a table whose storage is
another file (/etc/shadow, a FIFO), a virtual dataset or an external link
that makes libhdf5 open other files, tables that decompress or fill to
gigabytes, a region tree with a cycle, ranks in the billions.  Each check
here turns such a claim into one TallyError sentence, before the first
byte of table data is read: the probe's child runs structure() before it
reads anything (probe.py), the reader runs it again for callers of
tally.read, and the row checks run on tables bounded by the file's size.
"""
import os
import stat

import h5py
import numpy as np

from .errors import TallyError

# All tables together may claim at most this many times the file's size
# (plus _SLACK) in memory: a Tally table's storage is its data, so a real
# file claims at most its own size; a compressed copy (h5repack -f GZIP)
# gets this much room.  Fill values and compression bombs do not.
_MAX_EXPANSION = 16
_SLACK = 1 << 20
MAX_RANKS = 1 << 24   # nranks, partial_rank and every rank column
# What a file may hold before anything is read (issue 47: 20,000 tables cost
# 17.4 s and 305 MB, 50,000 attributes 19.6 s, 200,000 one-row chunks
# 836 MB, variable-length strings all pointing at one 1 MiB string 4.2 GB
# from a 1.7 MB file).  A real file: ~40 tables (a few hundred with NVTX
# payload schemas), ~40 attributes, contiguous tables (h5repack's chunks:
# a few per table).
MAX_OBJECTS = 2000    # groups and tables
MAX_ATTRS = 4000      # attributes of all objects together
MAX_CHUNKS = 20000    # chunks of all tables together
VLEN_BUDGET = 32 << 20   # decoded variable-length data of one file, bytes
_RANK_ROW = 64        # bytes of /ranks a rank writes, at least (its host name alone)


def _kind(mode):
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def open_h5(path, mode="r"):
    """h5py.File of path opened through a descriptor checked first: opened
    non-blocking (a FIFO swapped in after a check by name would block the
    open for ever), fstat'ed a regular file, then libhdf5 opens that very
    file (/proc/self/fd/N: the same open file, whatever the name now names).
    TallyError when it is not a regular file; OSError as h5py raises it."""
    import h5py
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        if e.errno == 2:
            raise FileNotFoundError(e.errno, e.strerror, path) from None
        if e.errno == 21:
            raise IsADirectoryError(e.errno, e.strerror, path) from None
        raise TallyError(f"{path}: {e.strerror or 'cannot be read'}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise TallyError(f"{path}: {_kind(st.st_mode)}, not a Tally file (a regular .h5 file)")
        byfd = f"/proc/self/fd/{fd}"
        try:
            if mode != "r" or not os.path.exists(byfd):
                return h5py.File(path, mode)   # no /proc: by name, checked just before
            return h5py.File(byfd, mode)
        except OSError as e:
            sig = b"\x89HDF\r\n\x1a\n"
            hdf5 = any(os.pread(fd, 8, at) == sig for at in (0, 512, 1024, 2048, 4096))
            why = "truncated or damaged" if hdf5 else "not an HDF5 file"
            raise TallyError(f"{path}: cannot read it as a Tally file ({why}: {e.__class__.__name__})") from None
    finally:
        os.close(fd)


def _vlen(dt):
    """True when numpy dtype dt (h5py's) holds variable-length data."""
    import h5py
    if dt.names:
        return any(_vlen(dt.fields[n][0]) for n in dt.names)
    if dt.subdtype:
        return _vlen(dt.subdtype[0])
    s = h5py.check_string_dtype(dt)
    return h5py.check_vlen_dtype(dt) is not None or (s is not None and s.length is None) or dt.kind == "O"


def _decoded(a):
    """Bytes of the variable-length data held by array a (object fields)."""
    if a.dtype.names:
        return sum(_decoded(a[n]) for n in a.dtype.names)
    if a.dtype.kind != "O":
        return 0
    total = 0
    for x in a.flat:
        total += x.nbytes if isinstance(x, np.ndarray) else len(x) if hasattr(x, "__len__") else 8
    return total


def read_all(ds, path, name, budget=None):
    """All rows of dataset ds.  A table with variable-length data is read
    in blocks whose decoded size is counted against `budget` (a one-element
    list shared by the tables of one file; VLEN_BUDGET when None): the
    file's size bounds no such data (every row may point at one string)."""
    if ds.shape is None or not ds.shape or not _vlen(ds.dtype):
        return ds[()]
    budget = budget if budget is not None else [VLEN_BUDGET]
    n, i, step, used, parts = ds.shape[0], 0, 16, 0, []
    while i < n:
        block = ds[i:i + step]
        got = _decoded(block)
        budget[0] -= got
        used += got
        if budget[0] < 0:
            raise TallyError(f"{path}: table {printable(name)} holds more than {VLEN_BUDGET >> 20} MiB of "
                             "variable-length data (rows pointing at shared strings?); the file is damaged")
        parts.append(block)
        i += len(block) or step
        step = int(min(1 << 16, max(16, (4 << 20) / max(used / i, 1))))
    return np.concatenate(parts) if parts else ds[()]


def regular_file(path):
    """TallyError unless path (after symbolic links: the user named it) is a
    regular file; a FIFO or a device would block or never end."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise TallyError(f"{path}: {e.strerror or 'cannot be read'}") from None
    if not stat.S_ISREG(st.st_mode):
        raise TallyError(f"{path}: {_kind(st.st_mode)}, not a Tally file (a regular .h5 file)")
    return st.st_size


def _links(f, path):
    """TallyError at the first link that is not a hard link: an external
    link opens another file, a soft link may point anywhere (Tally writes
    neither)."""
    kinds = {h5py.h5l.TYPE_SOFT: "a soft link", h5py.h5l.TYPE_EXTERNAL: "an external link"}

    def visit(name, info):
        return None if info.type == h5py.h5l.TYPE_HARD else (name, kinds.get(info.type, "a user-defined link"))

    hit = f.id.links.visit(visit, info=True)
    if hit:
        name = hit[0].decode("utf-8", "replace") if isinstance(hit[0], bytes) else hit[0]
        raise TallyError(f"{path}: {printable(name)} is {hit[1]}; a Tally file has hard links only, "
                         "so it is not read")


def _storage(path, name, ds):
    """TallyError when dataset name keeps its data outside the file; returns
    the bytes it claims in memory."""
    dcpl = ds.id.get_create_plist()
    if dcpl.get_layout() == h5py.h5d.VIRTUAL:
        raise TallyError(f"{path}: table {printable(name)} is a virtual dataset (its data lives in other files); "
                         "a Tally file has none, so it is not read")
    if dcpl.get_external_count() > 0:
        raise TallyError(f"{path}: table {printable(name)} keeps its data in an external file; a Tally file "
                         "keeps everything inside, so it is not read")
    try:
        n = int(np.prod(ds.shape, dtype=np.float64)) if ds.shape is not None else 0
        return n * max(ds.dtype.itemsize, ds.id.get_type().get_size())
    except (TypeError, ValueError, OverflowError):
        raise TallyError(f"{path}: table {printable(name)} has an unreadable shape or type; the file is damaged") from None


def _count_objects(f, path):
    """TallyError past MAX_OBJECTS groups and tables (the visit stops there)."""
    seen = [0]

    def visit(name):
        seen[0] += 1
        return True if seen[0] > MAX_OBJECTS else None

    if f.id.links.visit(visit):
        raise TallyError(f"{path}: more than {MAX_OBJECTS} tables and groups; a Tally file has far fewer, "
                         "so it is not read")


def _attrs(path, obj, name, seen):
    seen[0] += len(obj.attrs)
    if seen[0] > MAX_ATTRS:
        raise TallyError(f"{path}: more than {MAX_ATTRS} attributes (at {printable(name) or '/'}); a Tally file "
                         "has far fewer, so it is not read")


def _chunks(path, name, ds, seen):
    """Chunks of a chunked table, from its shape and chunk shape."""
    chunk = ds.chunks
    if not chunk or ds.shape is None:
        return
    n = 1.0
    for dim, c in zip(ds.shape, chunk):
        n *= -(-dim // max(c, 1))
    seen[0] += n
    if seen[0] > MAX_CHUNKS:
        raise TallyError(f"{path}: its tables are stored in more than {MAX_CHUNKS} chunks (table "
                         f"{printable(name)}); the file is damaged")


def structure(f, path):
    """Links, storage and total size of every table of the open file f,
    the number of tables, attributes and chunks, checked from the metadata
    alone (no table data is read)."""
    have = regular_file(path)
    _count_objects(f, path)
    _links(f, path)
    names, attrs, chunks = [], [0], [0]
    _attrs(path, f, "", attrs)
    f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else _attrs(path, o, n, attrs))
    total, allowed = 0, _MAX_EXPANSION * have + _SLACK
    for n in names:
        _attrs(path, f[n], n, attrs)
        _chunks(path, n, f[n], chunks)
        total += _storage(path, n, f[n])
        if total > allowed:
            raise TallyError(f"{path}: its tables claim more than {total / 2**20:.1f} MiB in a file of "
                             f"{have / 2**20:.1f} MiB (table {printable(n)}); the file is damaged")
    return names


def region_tree(path, regions):
    """TallyError unless /regions is a tree: unique ids, parents that exist
    (or -1), no cycle.  A cycle made the report grow without end."""
    if regions is None or not len(regions) or "id" not in regions or "parent" not in regions:
        return
    ids = regions["id"].astype(np.int64).to_numpy()
    parents = regions["parent"].astype(np.int64).to_numpy()
    uniq, counts = np.unique(ids, return_counts=True)
    if len(uniq) != len(ids):
        raise TallyError(f"{path}: region id {int(uniq[counts > 1][0])} appears more than once; the file is damaged")
    known = set(uniq.tolist())
    parent = dict(zip(ids.tolist(), parents.tolist()))
    bad = [p for p in parent.values() if p != -1 and p not in known]
    if bad:
        raise TallyError(f"{path}: a region's parent {bad[0]} is no region; the file is damaged")
    state = {}   # 1: on the current chain, 2: reaches the root
    for start in parent:
        chain, rid = [], start
        while rid != -1 and rid not in state:
            state[rid] = 1
            chain.append(rid)
            rid = parent[rid]
        if rid != -1 and state[rid] == 1:
            raise TallyError(f"{path}: the region tree has a cycle (region {rid} is its own ancestor); "
                             "the file is damaged")
        for c in chain:
            state[c] = 2


def ranks(path, tables, meta):
    """TallyError when a complete file claims more ranks than it could hold
    (every rank writes a row of /ranks, over _RANK_ROW bytes), or a table
    names a rank outside 0..nranks-1 (nranks itself at most MAX_RANKS).  A
    partial file holds one rank of a job of any size: its missing ranks
    are kept as ranges (rankset.py)."""
    nranks = int(meta.get("nranks", MAX_RANKS))
    if "nranks" in meta and not meta.get("partial") and nranks * _RANK_ROW > os.path.getsize(path):
        raise TallyError(f"{path}: a complete file of {nranks} ranks would hold a row for each, more than its "
                         f"{os.path.getsize(path)} bytes; the file is damaged")
    for name, t in tables.items():
        if "rank" not in getattr(t, "columns", ()) or not len(t):
            continue
        try:
            col = t["rank"].astype(np.int64)
        except (TypeError, ValueError, OverflowError):
            raise TallyError(f"{path}: table {printable(name)} has ranks that are not numbers; the file is damaged") from None
        lo, hi = int(col.min()), int(col.max())
        if lo < 0 or hi >= nranks:
            raise TallyError(f"{path}: table {printable(name)} holds rank {hi if hi >= nranks else lo}, outside "
                             f"0..{nranks - 1} (the file's nranks); the file is damaged")


# C0 and C1 controls, DEL, and the bidirectional overrides and isolates
# that reorder what a terminal shows
_CONTROL = {c: f"\\x{c:02x}" for c in list(range(0x20)) + list(range(0x7f, 0xa0))}
_CONTROL.update({c: f"\\u{c:04x}" for c in list(range(0x202a, 0x202f)) + list(range(0x2066, 0x206a))})
_CONTROL.update({0x09: "\\t", 0x0a: "\\n", 0x0d: "\\r", 0x1b: "\\x1b"})


def printable(s):
    """s with control characters (terminal escapes, newlines, bidi
    overrides) written as \\xNN: names from a file are shown, never obeyed."""
    return s.translate(_CONTROL) if isinstance(s, str) else s
