"""`zuni perft` and `zuni moves`: the rules engine from the command line."""

from __future__ import annotations

import argparse
import sys
import time

import zuni
from zuniboard.errors import UsageError
from zuniboard.games.words import refusal


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    perft = subparsers.add_parser(
        "perft",
        help="count legal move sequences of a given depth",
        description="Print perft(DEPTH) from the start position (docs/rules.md's convention) as the last line.",
    )
    perft.add_argument("ruleset", help='ruleset text, e.g. "mosona" or "kolowis chain=forced"')
    perft.add_argument("depth", type=int, help="number of moves (0 or more)")
    perft.add_argument("--divide", action="store_true", help="also print the count below each first move")
    perft.set_defaults(func=run_perft)

    moves = subparsers.add_parser(
        "moves",
        help="list the legal moves after a sequence of moves",
        description=(
            "Play MOVE ... from the start and print the legal moves of the resulting position, "
            "sorted, one per line; or `over RESULT` when the game is over. With no MOVE: the "
            "legal moves of the start position."
        ),
        epilog=MOVES_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    moves.add_argument("ruleset", nargs="?", default=None, help='ruleset text, e.g. "awithlaknakwe players=4"')
    moves.add_argument("moves", nargs="*", metavar="MOVE", help="moves in docs/rules.md's text form")
    moves.set_defaults(func=run_moves)


MOVES_EXAMPLES = """examples:
  zuni moves mosona                      the legal moves of the start position
  zuni moves mosona s3xm4-m5 n5xm5-m4    ... after these two moves
  zuni moves "kolowis size=short"        rulesets: mosona, kolowis, awithlaknakwe (docs/rules.md)"""


def _game(ruleset_text: str) -> zuni.Game:
    try:
        return zuni.new_game(ruleset_text)
    except zuni.RulesetError as exc:
        raise UsageError(str(exc))


def run_perft(args: argparse.Namespace) -> int:
    if args.depth < 0:
        raise UsageError("depth must be 0 or more, not %d" % args.depth)
    game = _game(args.ruleset)
    started = time.perf_counter()
    if args.divide:
        total = 0
        for move in sorted(game.legal_moves(), key=str):
            game.push(move)
            count = zuni.perft(game, args.depth - 1)
            game.pop()
            total += count
            print("%s %d" % (move, count))
    else:
        total = zuni.perft(game, args.depth)
    elapsed = time.perf_counter() - started
    print("# %s depth %d in %.3f s" % (game.ruleset, args.depth, elapsed), file=sys.stderr)
    print(total)
    return 0


def run_moves(args: argparse.Namespace) -> int:
    if args.ruleset is None:
        raise UsageError("zuni moves RULESET [MOVE ...]: give the ruleset (the moves are optional)\n" + MOVES_EXAMPLES)
    game = _game(args.ruleset)
    for text in args.moves:
        try:
            game.push_text(text)
        except zuni.IllegalMoveError as exc:
            # Why, in the rule's words, as `zuni play` says it ("a capture is compulsory: ...").
            why = refusal(game, text).partition(": ")[2]
            if game.is_game_over() or not why:
                raise UsageError("move %d: %s" % (game.ply() + 1, exc))
            raise UsageError("move %d: %s: %s" % (game.ply() + 1, exc, why))
        except zuni.MoveError as exc:
            raise UsageError("move %d: %s" % (game.ply() + 1, exc))
    outcome = game.outcome()
    if outcome is not None:
        print("over %s" % outcome.result)
        return 0
    for text in sorted(str(move) for move in game.legal_moves()):
        print(text)
    return 0
