"""HDF5 datasets -> pandas DataFrames, generically.

Every compound dataset becomes a DataFrame: fixed and variable-length
strings are decoded, HDF5 enums become their names, nested compounds are
flattened to "outer.inner" columns and array members are expanded to one
column per element.  Array fields of type CNT are named after the events
(one column per row of /events); other arrays get "<field>_<i>".
Strings come with their control characters escaped (filecheck.printable):
a name from a file is shown, never obeyed by the terminal.
"""
import h5py
import numpy as np
import pandas as pd

from .filecheck import printable


def _decode(values):
    """Bytes -> str for an object or bytes column."""
    return [printable(v.decode("utf-8", "replace") if isinstance(v, bytes) else v) for v in values]


def enum_mapping(dt):
    """An HDF5 enum type's names -> values (None when dt is no enum)."""
    return h5py.check_enum_dtype(dt)


def _enum_names(dt, values):
    """Values of an HDF5 enum column as their names (None if not an enum)."""
    mapping = h5py.check_enum_dtype(dt)
    if not mapping:
        return None
    inverse = {v: k for k, v in mapping.items()}
    return [inverse.get(int(v), int(v)) for v in values]


def _columns(name, values, dt, array_names, out):
    """Add the column(s) of one field to out (a dict of name -> values)."""
    if dt.names:
        for sub in dt.names:
            _columns(f"{name}.{sub}", values[sub], dt.fields[sub][0], array_names, out)
    elif dt.subdtype is not None:
        # explicit width: an empty table cannot infer it (reshape(0, -1))
        flat = values.reshape(len(values), int(np.prod(dt.subdtype[1])))
        labels = array_names.get(name) or []
        for i in range(flat.shape[1]):
            out[labels[i] if i < len(labels) else f"{name}_{i}"] = flat[:, i]
    elif dt.kind == "S" or dt.kind == "O":
        out[name] = _decode(values)
    else:
        names = _enum_names(dt, values)
        out[name] = names if names is not None else values


def dataset_frame(ds, array_names=None, path=None, budget=None):
    """The DataFrame of one h5py dataset; array_names maps array fields to
    labels; variable-length data bounded (filecheck.read_all; path names
    the file in its sentence, budget is shared by a file's tables)."""
    from . import filecheck
    data = filecheck.read_all(ds, path or ds.file.filename, ds.name.lstrip("/"), budget)
    if np.ndim(data) == 0:
        data = np.atleast_1d(data)
    out = {}
    if data.dtype.names:
        for f in data.dtype.names:
            _columns(f, data[f], data.dtype.fields[f][0], array_names or {}, out)
    else:
        _columns("value", data.reshape(len(data), -1) if data.ndim > 1 else data,
                 data.dtype, array_names or {}, out)
    return pd.DataFrame(out)


def text(b):
    """A fixed-size HDF5 string (bytes) as str (control characters escaped)."""
    return printable(b.decode("utf-8", "replace") if isinstance(b, bytes) else b)


def rows(f, name):
    """The rows of table name of an open h5py file as a numpy structured
    array (None when the file has no such table).  name must be a table
    of schema.def: the one list of table names."""
    from . import schema
    if name not in schema.load().tables:
        raise KeyError(f"{name}: not a table of schema.def")
    from . import filecheck
    return filecheck.read_all(f[name], f.filename, name) if name in f else None


def attr_value(v):
    """An HDF5 attribute as a plain Python value."""
    if isinstance(v, bytes):
        return printable(v.decode("utf-8", "replace"))
    if isinstance(v, str):
        return printable(v)
    if isinstance(v, np.ndarray):
        return [attr_value(x) for x in v.tolist()] if v.ndim else attr_value(v[()])
    if isinstance(v, np.generic):
        return v.item()
    return v
