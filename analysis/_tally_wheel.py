"""_tally_wheel.py - the reader's build backend (PEP 517, in-tree).

pip installs the `tally` package from this directory (the sources'
analysis/ or an install prefix's share/tally/python) through these hooks,
offline and with nothing to fetch: they write only into the directories
pip hands them, never into the directory they build from (setuptools wrote
build/ and *.egg-info there: a read-only prefix refused an unprivileged
user, and an owner's prefix kept them).  `python3 -B _tally_wheel.py DIR`
writes the same wheel into DIR (the build does, so the prefix holds a
wheel pip installs without building).  Standard library only; the wheel
holds tally/*.py and schema.def, the same bytes for the same files.
"""
import base64
import hashlib
import os
import sys
import zipfile

NAME, VERSION = "tally_report", "1"
DIST = f"{NAME}-{VERSION}"
HERE = os.path.dirname(os.path.abspath(__file__))
METADATA = f"""Metadata-Version: 2.1
Name: tally-report
Version: {VERSION}
Summary: Read and report on Tally's HDF5 measurement files
License: BSD-3-Clause
Requires-Python: >=3.9
Requires-Dist: h5py
Requires-Dist: numpy
Requires-Dist: pandas
Requires-Dist: matplotlib

Reads the HDF5 files Tally writes (tally.read) and reports on them (tally-report).
"""
WHEEL = "Wheel-Version: 1.0\nGenerator: tally _tally_wheel\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
ENTRY = "[console_scripts]\ntally-report = tally.launch:entry\n"
STAMP = (1980, 1, 1, 0, 0, 0)   # zip entries carry no build time


def _package_files():
    pkg = os.path.join(HERE, "tally")
    for name in sorted(os.listdir(pkg)):
        path = os.path.join(pkg, name)
        if (name.endswith(".py") or name == "schema.def") and os.path.isfile(path):
            yield f"tally/{name}", path


def _dist_info():
    return {f"{DIST}.dist-info/METADATA": METADATA.encode(), f"{DIST}.dist-info/WHEEL": WHEEL.encode(),
            f"{DIST}.dist-info/entry_points.txt": ENTRY.encode()}


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}\n"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = f"{DIST}-py3-none-any.whl"
    entries = [(arc, open(path, "rb").read()) for arc, path in _package_files()]
    entries += sorted(_dist_info().items())
    record = "".join(_record_line(a, d) for a, d in entries) + f"{DIST}.dist-info/RECORD,,\n"
    entries.append((f"{DIST}.dist-info/RECORD", record.encode()))
    tmp = os.path.join(wheel_directory, name + ".part")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in entries:
            info = zipfile.ZipInfo(arc, STAMP)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    os.replace(tmp, os.path.join(wheel_directory, name))   # safe-file: pip's own build directory
    return name


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = os.path.join(metadata_directory, f"{DIST}.dist-info")
    os.makedirs(info, exist_ok=True)   # safe-file: pip's metadata directory, not Tally's output
    for arc, data in _dist_info().items():
        with open(os.path.join(metadata_directory, arc), "wb") as f:   # safe-file: pip's directory
            f.write(data)
    return f"{DIST}.dist-info"


def get_requires_for_build_wheel(config_settings=None):
    return []


if __name__ == "__main__":
    sys.exit(print(os.path.join(sys.argv[1], build_wheel(sys.argv[1]))))
