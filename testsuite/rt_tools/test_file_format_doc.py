#!/usr/bin/python3
"""test_file_format_doc.py SCHEMA_DEF DOCS_DIR - the documentation of the
file format matches wrappers/output/schema.def: the schema version, every
root attribute (both ways), every table row of docs/file-format.md has
exactly the table's fields in order, and every table of schema.def is
documented (in file-format.md or, for the NVTX tables, another docs page)."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check  # noqa: E402
import th  # noqa: E402

schema, docs = sys.argv[1], sys.argv[2]


text = open(schema).read()
text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
version = int(re.search(r"TLY_SCHEMA_VERSION\((\d+)\)", text).group(1))
attrs = re.findall(r"^TLY_ATTR\((\w+),", text, re.M)
tables = re.findall(r"^TLY_TABLE\((\w+),", text, re.M)
fields = {t: [] for t in tables}
for t, f in re.findall(r"^TLY_FIELD\((\w+),\s*(\w+),", text, re.M):
    fields[t].append(f)

ff = open(os.path.join(docs, "file-format.md")).read()
check("schema version %d" % version in ff, "file-format.md names schema version %d" % version)
root = re.search(r"## Root attributes\n(.*?)\n## ", ff, re.S)
documented_attrs = re.findall(r"`(\w+)`", root.group(1)) if root else []
for a in attrs:
    check(a in documented_attrs, "root attribute %s documented" % a)
for a in documented_attrs:
    check(a in attrs, "documented root attribute %s is in schema.def" % a)

rows = re.findall(r"^\| `(\w+)` \|[^|]*\| `([^`]*)`", ff, re.M)
for t, flist in rows:
    got = [re.sub(r"\[.*\]", "", x.strip()) for x in flist.split(",")]
    check(t in fields, "documented table %s is in schema.def" % t)
    if t in fields:
        check(got == fields[t], "table %s: documented fields %s, schema.def %s" % (t, got, fields[t]))
alldocs = "".join(open(os.path.join(docs, n)).read() for n in sorted(os.listdir(docs)) if n.endswith(".md"))
for t in tables:
    check(t in dict(rows) or re.search(r"`[^`\n]*\b%s\b[^`\n]*`" % t, alldocs), "table %s documented" % t)
sys.exit(th.done("%d tables, %d attributes" % (len(tables), len(attrs))))
