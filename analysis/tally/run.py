"""Run: one measurement (a file, or merged partial files) as DataFrames."""
import pandas as pd


class Run:
    """A Tally measurement.

    meta     run metadata: the root attributes of the file (dict)
    tables   every table found, name -> DataFrame (schema tables by their
             schema name; other datasets, e.g. NVTX payload tables, by
             their path in the file without the leading '/')
    docs     table name -> documentation (from the schema or the 'doc'
             attribute of the dataset)
    sources  the files read
    nccl     NCCL calls per rank and calling region, derived from NCCL's
             NVTX ranges and payloads (tally.nccl; empty without them)
    partial  True when the data comes from per-rank partial files
    missing_ranks, partial_ranks  sorted lists of rank numbers
    """

    def __init__(self, schema, meta, tables, docs, sources):
        self.schema = schema
        self.meta = meta
        self.tables = tables
        self.docs = docs
        self.sources = list(sources)
        self.partial = bool(meta.get("partial", 0))
        self.partial_ranks = []
        self.missing_ranks = []
        self.partial_reasons = {}
        self.damaged = []   # one sentence per unreadable partial file left out

    def has(self, name):
        """True when the file holds table name with at least one row."""
        return name in self.tables and len(self.tables[name]) > 0

    def table(self, name):
        """Table name; an empty DataFrame with the schema's columns if absent."""
        if name in self.tables:
            return self.tables[name]
        t = self.schema.tables.get(name)
        return pd.DataFrame(columns=[f.name for f in t.fields] if t else [])

    def __getattr__(self, name):
        if name.startswith("_") or name in ("schema", "tables"):
            raise AttributeError(name)
        if name in self.tables or name in self.schema.tables:
            return self.table(name)
        raise AttributeError(f"no table or attribute {name!r} in this run")

    @property
    def nccl(self):
        """NCCL calls per rank and calling region (calls, time, bytes,
        communicator size), derived from NCCL's NVTX ranges and payloads
        (tally.nccl.calls); empty without NCCL ranges."""
        from . import nccl
        return nccl.calls(self)

    @property
    def event_names(self):
        """Names of the counted events, in counter-column order."""
        ev = self.table("events")
        return list(ev.sort_values("index")["name"]) if len(ev) else []

    @property
    def ranks_present(self):
        """Ranks with a row in /ranks (or in /region_stats when /ranks is empty)."""
        src = self.table("ranks") if self.has("ranks") else self.table("region_stats")
        return sorted(int(r) for r in src["rank"].unique()) if "rank" in src else []

    @property
    def nranks(self):
        """Ranks of the job (from the attributes and the ranks seen)."""
        seen = self.ranks_present
        return max(int(self.meta.get("nranks", 1) or 1), (max(seen) + 1) if seen else 0)

    def __repr__(self):
        kind = "partial" if self.partial else "complete"
        return (f"<tally.Run {kind} {self.meta.get('program', '?')!r} "
                f"ranks={self.nranks} tables={sorted(self.tables)}>")
