"""Tally's file format, read from schema.def (the one definition).

schema.def is the X-macro file the C writer includes.  Its lines are
regular, so they are parsed here with one regular expression per macro:

    TLY_SCHEMA_VERSION(1)
    TLY_ATTR(name, TYPE, "doc")
    TLY_TABLE(name, "doc")
    TLY_FIELD(table, name, TYPE, "doc")
    TLY_END(table)

A copy of schema.def is installed next to this module, so the reader
never needs the C source tree.
"""
import os
import re
from dataclasses import dataclass, field

from . import settings

_VERSION = re.compile(r'^\s*TLY_SCHEMA_VERSION\(\s*(\d+)\s*\)')
_ATTR = re.compile(r'^\s*TLY_ATTR\(\s*(\w+)\s*,\s*(\w+)\s*,\s*"((?:[^"\\]|\\.)*)"\s*\)')
_TABLE = re.compile(r'^\s*TLY_TABLE\(\s*(\w+)\s*,\s*"((?:[^"\\]|\\.)*)"\s*\)')
_FIELD = re.compile(r'^\s*TLY_FIELD\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*,\s*"((?:[^"\\]|\\.)*)"\s*\)')
_END = re.compile(r'^\s*TLY_END\(\s*(\w+)\s*\)')

#: Field types whose values are int64 arrays.
ARRAY_TYPES = ("CNT", "HIST")


@dataclass
class Field:
    """One column of a table: name, schema type and documentation."""
    name: str
    type: str
    doc: str

    @property
    def is_string(self):
        """True for the fixed-size string types (STR32, STR64, ...)."""
        return self.type.startswith("STR")

    @property
    def is_array(self):
        """True for int64 array columns (CNT, HIST)."""
        return self.type in ARRAY_TYPES


@dataclass
class Table:
    """One table (an HDF5 compound dataset at the root of the file)."""
    name: str
    doc: str
    fields: list = field(default_factory=list)

    def field(self, name):
        """The Field called name, or None."""
        return next((f for f in self.fields if f.name == name), None)


@dataclass
class Schema:
    """The parsed schema: version, root attributes and tables in file order."""
    version: int
    attrs: list
    tables: dict


def default_path():
    """Where schema.def is: $TALLY_SCHEMA, next to this module, or the source tree."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [settings.text("TALLY_SCHEMA"),
                  os.path.join(here, "schema.def"),
                  os.path.join(here, "..", "..", "wrappers", "output", "schema.def")]
    for c in candidates:
        if c and os.path.isfile(c):
            return c
    raise FileNotFoundError("schema.def not found next to the tally package")


def parse_text(text):
    """Parse the text of schema.def into a Schema."""
    version, attrs, tables, open_table = 0, [], {}, None
    for lineno, line in enumerate(text.splitlines(), 1):
        if m := _VERSION.match(line):
            version = int(m.group(1))
        elif m := _ATTR.match(line):
            attrs.append(Field(m.group(1), m.group(2), m.group(3)))
        elif m := _TABLE.match(line):
            open_table = tables[m.group(1)] = Table(m.group(1), m.group(2))
        elif m := _FIELD.match(line):
            if open_table is None or open_table.name != m.group(1):
                raise ValueError(f"schema.def:{lineno}: field outside its table")
            open_table.fields.append(Field(m.group(2), m.group(3), m.group(4)))
        elif _END.match(line):
            open_table = None
    return Schema(version, attrs, tables)


_cache = {}


def load(path=None):
    """The Schema of schema.def at path (default: the installed copy), cached."""
    path = path or default_path()
    if path not in _cache:
        with open(path, encoding="utf-8") as f:
            _cache[path] = parse_text(f.read())
    return _cache[path]


#: The first schema version whose write_seconds attribute holds seconds;
#: versions 1 to 3 hold microseconds there (an integer).
WRITE_SECONDS_SINCE = 4


def write_seconds(version, value):
    """The file's write time in seconds, from its write_seconds attribute
    and schema version (microseconds before version 4)."""
    v = float(value)
    return v / 1e6 if int(version) < WRITE_SECONDS_SINCE else v
