"""rawfile.py - tally.raw(): a Tally file's tables as the file holds them, for programs
(tests, tools) that check raw rows and attributes rather than the
DataFrames of tally.read.  Opening goes through the reader's checks (one
sentence for a missing, special or non-HDF5 file: fileio._open), and a
table name must be one of schema.def (h5table.rows): one list of tables,
one reader.

    with tally.raw("job.h5") as f:
        f.attrs["nranks"]              # the root attributes, as stored
        f["region_stats"]              # numpy structured array of the rows
        "nvtx_marks" in f              # whether the file has the table
        f["nvtx/payloads/outer"]       # an NVTX payload table (one per schema)
        f.enum("nvtx/payloads/outer", "color")   # an enum field's names -> values
"""
from . import h5table
from .fileio import _open

PAYLOADS = "nvtx/payloads/"   # the NVTX payload tables: one per schema, fields of the schema


class RawFile:
    """An open Tally file: attrs, tables by name (numpy structured arrays)."""

    def __init__(self, path):
        self.filename = path
        self._f = _open(path)
        self.attrs = self._f.attrs

    def __getitem__(self, name):
        if name.startswith(PAYLOADS):
            if name not in self._f:
                raise KeyError(f"{self.filename}: no payload table {name}")
            return self._f[name][:]
        rows = h5table.rows(self._f, name)
        if rows is None:
            raise KeyError(f"{self.filename}: no table {name}")
        return rows

    def __contains__(self, name):
        return name in self._f

    def get(self, name):
        """The rows of table name, None when the file has no such table."""
        return self[name] if name in self._f else None

    def payloads(self):
        """The names of the file's NVTX payload tables (nvtx/payloads/<schema>)."""
        grp = self._f.get(PAYLOADS.rstrip("/"))
        return sorted(PAYLOADS + k for k in grp) if grp is not None else []

    def enum(self, name, field):
        """The names -> values of enum field of a table, None when not an enum."""
        return h5table.enum_mapping(self._f[name].dtype[field])

    def sizes(self):
        """Rows of every table of the file, payload tables too: {path: rows}."""
        out = {}
        self._f.visititems(lambda k, o: out.__setitem__(k, len(o)) if hasattr(o, "dtype") else None)
        return out

    def group(self, name):
        """A dataset or group that is not a table (nvtx/payloads/...), read-only h5py object."""
        return self._f[name]

    def close(self):
        self._f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def raw(path):
    """The file at path opened for raw access (see the module's text)."""
    return RawFile(path)
