"""Reading one Tally HDF5 file into a Run."""
import os

from . import filecheck, h5table, sanity
from . import schema as schema_mod
from .errors import TallyError
from .rankset import RankSet
from .run import Run


def _open(path):
    """Open path with h5py, turning failures into one-sentence TallyErrors."""
    if not os.path.exists(path):
        raise TallyError(f"{path}: no such file or directory")
    try:
        return filecheck.open_h5(path)   # checked on its descriptor, never blocking
    except FileNotFoundError:
        raise TallyError(f"{path}: no such file or directory") from None


def _read_tables(f, sch, datasets, fpath):
    """All datasets of f as DataFrames; CNT columns named after /events."""
    tables, docs, budget = {}, {}, [filecheck.VLEN_BUDGET]
    if "events" in f:
        sanity.dataset_size(fpath, "events", f["events"])
        events = h5table.dataset_frame(f["events"], None, fpath, budget)
        tables["events"] = events
    names = list(events.sort_values("index")["name"]) if "events" in tables and len(events) else []
    for path in datasets:
        if path in tables:
            continue
        spec = sch.tables.get(path)
        arrays = {}
        if spec:
            arrays = {fl.name: names for fl in spec.fields if fl.type == "CNT"}
        sanity.dataset_size(fpath, path, f[path])
        tables[path] = h5table.dataset_frame(f[path], arrays, fpath, budget)
    for path in tables:
        spec = sch.tables.get(path)
        doc = f[path].attrs.get("doc", b"")
        docs[path] = spec.doc if spec else h5table.attr_value(doc)
    return tables, docs


def _mask_uncounted(tables):
    """Counter values of regions whose counters were not measured (schema 3's
    region_stats.uncounted) become NaN: shown as absent, never as 0, and
    left out of sums."""
    st = tables.get("region_stats")
    ev = tables.get("events")
    if st is None or ev is None or "uncounted" not in st.columns or not len(st):
        return
    cols = [c for c in ev["name"] if c in st.columns]
    mask = st["uncounted"].astype(bool).to_numpy()
    if mask.any() and cols:
        st[cols] = st[cols].astype(float)
        st.loc[mask, cols] = float("nan")


def _check_meta(path, meta, sch):
    """The root attributes the reader relies on, checked (sanity.py)."""
    meta["schema_version"] = sanity.schema_version(path, meta["schema_version"], sch)
    if "write_seconds" in meta:   # seconds, whatever the version wrote
        meta["write_seconds"] = schema_mod.write_seconds(meta["schema_version"], meta["write_seconds"])
    top = filecheck.MAX_RANKS
    for name, default, lo, hi in (("nranks", 1, 1, top), ("partial", 0, 0, 1), ("partial_rank", -1, -1, top - 1),
                                  ("start_time", 0, 0, 253402300799), ("end_time", 0, 0, 253402300799)):
        if name in meta:
            meta[name] = sanity.integer_attr(path, meta, name, default, lo, hi)


def read_file(path, sch=None):
    """Read one Tally file (complete or per-rank partial) into a Run."""
    sch = sch or schema_mod.load()
    with _open(path) as f:
        if "schema_version" not in f.attrs:
            raise TallyError(f"{path}: an HDF5 file, but not a Tally measurement (no schema_version attribute)")
        try:
            datasets = filecheck.structure(f, path)   # before any table data is read
            meta = {k: h5table.attr_value(v) for k, v in f.attrs.items()}
            _check_meta(path, meta, sch)
            tables, docs = _read_tables(f, sch, datasets, path)
            filecheck.region_tree(path, tables.get("regions"))
            filecheck.ranks(path, tables, meta)
        except TallyError:
            raise
        except (OSError, KeyError, ValueError, RuntimeError, TypeError, IndexError, AttributeError) as e:
            raise TallyError(f"{path}: the file is truncated or damaged ({e.__class__.__name__} while reading its tables)") from None
    _mask_uncounted(tables)
    run = Run(sch, meta, tables, docs, [path])
    if run.partial:
        rank = int(meta.get("partial_rank", -1))
        run.partial_ranks = [rank] if rank >= 0 else []
        run.partial_reasons = {rank: meta.get("partial_reason", "")}
        run.missing_ranks = RankSet(run.nranks, run.ranks_present)
    return run
