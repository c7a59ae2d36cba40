"""``python -m ccx``: the same as the ``ccx`` command."""

import sys

from ccx import main

sys.exit(main())
