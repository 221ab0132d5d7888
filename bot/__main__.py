"""`python -m bot` is the `gradgate` command."""

import sys

from bot.cli import main

sys.exit(main())
