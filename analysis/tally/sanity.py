"""Checks on what a file claims before the reader trusts it.

A damaged file can claim anything: a schema version this reader never
heard of, a table of 10**13 rows (h5py then tries to allocate it), an
attribute of the wrong type.  Each check turns such a claim into one
TallyError sentence before the call that would fail or exhaust memory.
"""
import os

import numpy as np

from .errors import TallyError

# a table may be at most this many times larger in memory than the whole
# file (compression does not exist in Tally files; fill values do)
_MAX_EXPANSION = 16
_SMALL = 64 << 20   # sizes below this are always accepted


def schema_version(path, value, sch):
    """The file's schema_version as an int the reader knows, else TallyError."""
    if isinstance(value, (bytes, str)) or np.ndim(value) != 0:
        raise TallyError(f"{path}: schema_version {value!r} is not a number; not a Tally file this reader understands")
    try:
        v = int(value)
    except (TypeError, ValueError, OverflowError):
        raise TallyError(f"{path}: schema_version {value!r} is not a number") from None
    if v != value or v < 1 or v > sch.version:
        raise TallyError(f"{path}: schema version {value} is not one this reader knows (it reads versions 1 to "
                         f"{sch.version}); use a newer tally-report")
    return v


def dataset_size(path, name, ds):
    """TallyError when dataset `name` claims more bytes than the file can hold."""
    try:
        n = int(np.prod(ds.shape, dtype=np.float64)) if ds.shape is not None else 0
        need = n * ds.dtype.itemsize
    except (TypeError, ValueError, OverflowError):
        raise TallyError(f"{path}: table {name} has an unreadable shape or type; the file is damaged") from None
    have = os.path.getsize(path)
    if need > _SMALL and need > _MAX_EXPANSION * have:
        raise TallyError(f"{path}: table {name} claims {n} rows ({need / 2**30:.1f} GiB) in a file of "
                         f"{have / 2**20:.1f} MiB; the file is damaged")


def integer_attr(path, meta, name, default, lo=None, hi=None):
    """meta[name] as an int within [lo, hi], else TallyError."""
    v = meta.get(name, default)
    try:
        i = int(v)
        if isinstance(v, (bytes, str)) or i != v:
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        raise TallyError(f"{path}: attribute {name} is {v!r}, not an integer; the file is damaged") from None
    if (lo is not None and i < lo) or (hi is not None and i > hi):
        raise TallyError(f"{path}: attribute {name} is {i}, outside {lo}..{hi}; the file is damaged")
    return i
