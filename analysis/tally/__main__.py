"""python3 -m tally ...: the same as tally-report ... (launch.py chooses
the interpreter)."""
import sys

from .launch import entry

sys.exit(entry())
