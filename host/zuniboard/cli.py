"""The `zuni` command."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Sequence

from zuniboard import __version__
from zuniboard.errors import UsageError

# Modules under zuniboard.commands, each with register(subparsers).
COMMAND_MODULES = (
    "rules",
    "play",
    "learn",
    "puzzle",
    "review",
    "analyze",
    "log",
    "board",
    "sim",
    "tablebase",
    "referee",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zuni",
        description="zuniboard: play the Zuni games on the electronic board or the virtual board.",
    )
    parser.add_argument("--version", action="version", version="zuni " + __version__)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = importlib.import_module("zuniboard.commands." + name)
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        status: int = args.func(args)
    except UsageError as exc:
        print("zuni: error: %s" % exc, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nzuni: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`zuni log list | head`): what is left unprinted is not
        # wanted. Python would print a traceback at exit flushing stdout: point it at
        # nothing first.
        with contextlib.suppress(OSError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return 141  # as a shell reports a command ended by SIGPIPE
    return status


if __name__ == "__main__":
    sys.exit(main())
