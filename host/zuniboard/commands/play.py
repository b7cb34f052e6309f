"""`zuni play`: play a game.

Until the board link and the virtual board land, this plays in the terminal: moves are
typed in RULES.md's text form and the computer answers with a capture-greedy move."""

from __future__ import annotations

import argparse
import random

import zuni
from zuniboard.errors import UsageError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    play = subparsers.add_parser("play", help="play a game", description=__doc__)
    play.add_argument("--ruleset", default="mosona", help='ruleset text (default "mosona")')
    play.add_argument("--seed", type=int, default=None, help="seed for the computer's choices")
    play.set_defaults(func=run_play)


def _greedy(game: zuni.Game, rng: random.Random) -> zuni.Move:
    moves = game.legal_moves()
    best = max(len(m.captures) for m in moves)
    return rng.choice([m for m in moves if len(m.captures) == best])


def run_play(args: argparse.Namespace) -> int:
    try:
        game = zuni.new_game(args.ruleset)
    except zuni.RulesetError as exc:
        raise UsageError(str(exc))
    rng = random.Random(args.seed)
    human = game.turn
    print(
        "%s: you play %s. Type a move (e.g. %s), `moves` to list them, `quit` to stop."
        % (game.ruleset.title, zuni.SIDE_NAMES[human], game.legal_moves()[0])
    )
    while not game.is_game_over():
        if game.turn == human:
            try:
                text = input("%d. %s> " % (game.ply() + 1, zuni.SIDE_NAMES[game.turn])).strip()
            except EOFError:
                return 0
            if text in ("quit", "q"):
                return 0
            if text == "moves":
                print(" ".join(sorted(str(m) for m in game.legal_moves())))
                continue
            try:
                game.push_text(text)
            except zuni.MoveError as exc:
                print("  %s" % exc)
        else:
            move = _greedy(game, rng)
            print("%d. %s plays %s" % (game.ply() + 1, zuni.SIDE_NAMES[game.turn], move))
            game.push(move)
    outcome = game.outcome()
    assert outcome is not None
    print("game over: %s (%s)" % (outcome.result, outcome.termination))
    return 0
