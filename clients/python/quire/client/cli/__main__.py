"""`python -m quire.client.cli`: the `quire` command."""

import sys

from quire.client.cli import main

sys.exit(main())
