"""``python -m demo``: the same as ``arena-demo``."""

import sys

from demo.command import main

sys.exit(main())
