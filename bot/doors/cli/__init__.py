"""The `gradgate` command: parse the arguments, run one command, turn what escapes into a code.

``parser`` holds the command line, ``commands`` one function per command, ``output`` what
reaches stdout and stderr. ``main`` is the one top-level handler (DESIGN: one per door): exit
codes 0 success, 1 a check failed, 2 gradgate could not decide.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from gradgate.bot.doors.cli import output
from gradgate.bot.doors.cli.commands import COMMANDS
from gradgate.bot.doors.cli.parser import build_parser
from gradgate.checks.errors import GradgateError

__all__ = ["COMMANDS", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    output.escape_streams()
    try:
        args = build_parser().parse_args(argv)
    except BrokenPipeError:  # `gradgate --help | head -1`: only help and version print here
        output.drop_stdout()
        return 0
    fmt = getattr(args, "format", None)
    try:
        return COMMANDS[args.command](args)
    except GradgateError as exc:
        return output.failed(args.command, fmt, "error", str(exc))
    except KeyboardInterrupt:
        return output.failed(args.command, fmt, "interrupted")
    except Exception as exc:  # a pipe to git that broke too: stdout's goes through output.emit
        message = f"{type(exc).__name__}: {exc}"
        return output.failed(args.command, fmt, "internal", message)


if __name__ == "__main__":
    sys.exit(main())
