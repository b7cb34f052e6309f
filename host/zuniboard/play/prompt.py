"""What a typed line means in `zuni play`: a move, or a command; never one for the other.

A command is a whole word (``hint``, ``undo``, ``resign``, ``draw``, ``count``,
``new``, ``quit``, ``help``, ``board``) or ``/`` and the start of one (``/h``, ``/q``).
No word is a move (moves are point names with ``-``, ``x`` and ``@``, or ``pass``), so
any other line is read as a move: ``d2-c3`` and ``h2-g3`` are moves, not a draw or a
hint. A single letter alone is neither: the player is told to write ``/d`` for draw.

>>> game = zuni.new_game("awithlaknakwe")
>>> read_line("d2-c3", game).move.text()
'd2-c3'
>>> read_line("/d", game).command
'draw'
>>> read_line("d", game).error
'd: not a move; for a command write a word or / and its first letters (/d: draw)'
"""

from __future__ import annotations

from dataclasses import dataclass

import zuni
from zuniboard.games.words import refusal

# name -> what it does (the help text); the order is the help's.
COMMANDS: dict[str, str] = {
    "hint": "the computer's suggestion, shown on the board",
    "undo": "take back your last move (and the computer's reply)",
    "resign": "give up the game (asks first)",
    "draw": "offer or agree a draw (asks first)",
    "count": "offer or agree to end the game by counting pieces (asks first)",
    "new": "a new game, once this one is over",
    "board": "draw the board again",
    "help": "this list",
    "quit": "leave; the game stays in the log, `zuni play` offers to resume it",
}
ALIASES = {"takeback": "undo", "take-back": "undo", "exit": "quit", "?": "help"}
CONFIRM = {"resign", "draw", "count"}  # commands that end a game: asked again first
YES = {"y", "yes"}


def help_text(typed_moves: bool) -> str:
    lines = ["commands (a word, or / and its first letters: /h is hint):"]
    lines += ["  %-7s %s" % (name, what) for name, what in COMMANDS.items()]
    if typed_moves:
        lines.append("anything else is a move, typed as written in the move list (e.g. s3xm4-m5); Tab completes")
    return "\n".join(lines)


@dataclass(frozen=True)
class Line:
    """A typed line read: exactly one of ``command``, ``move`` or ``error`` is set."""

    text: str
    command: str = ""
    move: zuni.Move | None = None
    error: str = ""


def command_named(word: str) -> str:
    """The command ``word`` names ('' if none): a whole word or alias, or ``/`` and the
    first letters of a command (the first of the list that starts so: /h is hint)."""
    low = word.strip().lower()
    if low in COMMANDS:
        return low
    if low in ALIASES:
        return ALIASES[low]
    if low.startswith("/") and len(low) > 1:
        rest = low[1:]
        if rest in ALIASES:
            return ALIASES[rest]
        # The first command that starts so (the list's order decides: /h is hint).
        found = [name for name in COMMANDS if name.startswith(rest)]
        if found:
            return found[0]
    return ""


def read_line(text: str, game: zuni.Game) -> Line:
    """What ``text`` means in ``game`` (None: no game yet)."""
    word = text.strip()
    command = command_named(word)
    if command:
        return Line(word, command=command)
    if word.startswith("/"):
        return Line(word, error="%s: no such command; commands: %s" % (word, ", ".join(COMMANDS)))
    if len(word) == 1 and word.isalpha():
        found = [name for name in COMMANDS if name.startswith(word.lower())]
        hint = " (/%s: %s)" % (word.lower(), found[0]) if found else ""
        return Line(
            word, error="%s: not a move; for a command write a word or / and its first letters%s" % (word, hint)
        )
    if game is None:
        return Line(word, error="%s: no game yet" % word)
    try:
        return Line(word, move=game.parse_move(word))
    except zuni.MoveError:
        return Line(word, error=refusal(game, word))


def completions(game: zuni.Game) -> list[str]:
    """What Tab offers: the legal moves now, then the command words."""
    moves = [] if game is None else sorted(m.text() for m in game.legal_moves())
    return moves + list(COMMANDS)
