"""`zuni play --remote new|CODE`: a seat in a remote game, then `zuni play` on it."""

from __future__ import annotations

import argparse
import getpass
import os
import sys

import zuni
from zuniboard.errors import UsageError
from zuniboard.play.clock_view import check_clock

LOCAL_ONLY = ("south", "north", "west", "east", "resume", "start_from")


def run_remote(args: argparse.Namespace) -> int:
    from zuniboard.commands.play import run_local
    from zuniboard.remote.broker import BrokerError
    from zuniboard.remote.lobby import LobbyError, take_seat, wait_for_seats
    from zuniboard.remote.protocol import remote_dir

    for name in LOCAL_ONLY:
        if getattr(args, name, None):
            raise UsageError("--%s: not in a remote game (every seat is a person's)" % name.replace("_", "-"))
    new = args.remote.strip().lower() == "new"
    if not new and (args.ruleset or args.clock or args.gone):
        raise UsageError("--ruleset, --clock and --gone are the new game's: the game joined has its own")
    ruleset = args.ruleset or "mosona"
    clock = ""
    try:
        zuni.parse_ruleset(ruleset)
        if args.clock:
            clock = check_clock(args.clock, ruleset)
    except (zuni.RulesetError, ValueError) as exc:
        raise UsageError(str(exc))
    if args.seat and args.seat not in ("south", "north", "west", "east"):
        raise UsageError("--seat %r: south, north, west or east" % args.seat)
    name = args.name or getpass.getuser()

    def say(text: str) -> None:
        print(text, flush=True)

    try:
        seated = take_seat(
            "new" if new else args.remote,
            broker=args.broker,
            say=say,
            name=name,
            ruleset=ruleset,
            clock=clock,
            seat=args.seat,
            gone_s=args.gone,
        )
    except (LobbyError, BrokerError) as exc:
        raise UsageError(str(exc))
    try:
        if not seated.resumed:
            say("waiting for every seat to be taken (Ctrl-C to give up)")
        try:
            wait_for_seats(seated, say)
        except KeyboardInterrupt:
            print("zuni: interrupted", file=sys.stderr)
            return 130
        if args.port is None:
            # The virtual board's flash is one per layout and user: two terminals playing
            # each other on one computer need one each (this process only).
            creds = seated.client.creds
            os.environ["ZUNI_SIM_DIR"] = str(remote_dir() / "boards" / ("%s-%s" % (creds.code, creds.seat)))
        args.ruleset = str(seated.client.state.get("ruleset", ruleset))
        args.clock = None  # the referee keeps the clocks
        args.south = args.north = args.west = args.east = None
        for side, who in seated.players().items():
            setattr(args, side, who)
        return run_local(args, remote=seated)
    finally:
        seated.close()
