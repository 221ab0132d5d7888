"""`python -m gradgate.bot` is the `gradgate` command."""

import sys

from gradgate.bot.doors.cli import main

sys.exit(main())
