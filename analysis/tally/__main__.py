"""python3 -m tally ...: the same as tally-report ..."""
import sys

from .cli import main

sys.exit(main())
