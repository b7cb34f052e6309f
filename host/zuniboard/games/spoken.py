"""Spoken moves: what the game says, as a player hears it, briefly and in the game's terms.

``spoken(tone, text)`` turns one of the game controller's lines (``play.controller``'s
``say`` actions: a tone and a text, docs/play.md) into what a player hears, or '' for
what a player need not hear (the computer thinking, the terminal's hand at work): each
move of every side (``South, m6 to m5``), the computer's with what hands do (``North, n5
takes m5 to m4; take m5 off``), refusals with the rule, the board's mistakes and events,
hints with an endgame table's ``win in N``, a flag about to fall, results, and the
answers to ``where``, ``moves`` and ``last``. The terminal's speaker
(``play.speech.Speaker``, ``zuni play --speak``) and the browser page (its announcements
and its speech setting) say the same words.

>>> spoken("ai", "north plays n5xm5-m4: lift n5, jump m5 to m4, take m5 off (ai:3)")
'North, n5 takes m5 to m4; take m5 off'
>>> spoken("move", "2. south m6-m5")
'South, m6 to m5'
>>> spoken("ai", "north (ai:3) is thinking")
''
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from zuniboard.games.words import side_title

# A move in RULES.md's text form: point names joined by - (a step or a landing), x (a
# piece jumped) or @ (a drop), or a drop alone.
_POINT = r"[a-z]{1,2}\d{1,2}"
MOVE_TEXT = re.compile(r"(?<![\w@-])(?:@%s|%s(?:[-x@]%s)+)(?![\w-])" % (_POINT, _POINT, _POINT))
# The tones whose line is a move: the next of them cuts short what is still queued.
MOVE_TONES = ("move", "ai")


def move_spoken(text: str) -> str:
    """A move's text as it is said: ``s3xm4-m5xm6-m7`` -> ``s3 takes m4 to m5, takes m6
    to m7``; ``m6-m5`` -> ``m6 to m5``; ``@d2`` -> ``a piece down on d2``.

    >>> move_spoken("s3xm4-m5xm6-m7")
    's3 takes m4 to m5, takes m6 to m7'
    """
    if text.startswith("@"):
        return "a piece down on %s" % text[1:]
    if "@" in text:
        piece, _, dest = text.partition("@")
        return "%s down on %s" % (piece, dest)
    parts = re.split(r"([-x])", text)
    out = parts[0]
    for i in range(1, len(parts) - 1, 2):
        sep, name = parts[i], parts[i + 1]
        if sep == "x":
            out += "%stakes %s" % (", " if i > 1 else " ", name)
        else:
            out += " to %s" % name
    return out


def moves_spoken(text: str) -> str:
    """Every move written in ``text`` said as words (``a capture is compulsory:
    s3xm4-m5`` -> ``... s3 takes m4 to m5``)."""
    return MOVE_TEXT.sub(lambda m: move_spoken(m.group(0)), text)


def _first_sentence(text: str) -> str:
    head, _, _ = text.partition(". ")
    return head


def _spoken_move_line(text: str) -> str:
    # ``3. south m6-m5`` (a note in brackets may follow)
    match = re.match(r"^\d+\. (\S+) (\S+)(.*)$", text)
    if match is None:
        return moves_spoken(text)
    side, move, note = match.groups()
    if "carried out on the board" in note:
        return ""  # the computer's move, said when it was shown: not again
    line = "%s, %s" % (side_title(side), move_spoken(move))
    if "instead of the computer's" in note:
        line += ", not the computer's move"
    elif "cannot tell it from" in note:
        line += ", the same as %s" % move_spoken(note.split("cannot tell it from ", 1)[1].split(",")[0])
    return line


def _spoken_ai(text: str) -> str:
    # ``north plays n5xm5-m4: lift n5, jump m5 to m4, take m5 off (ai:3)``
    match = re.match(r"^(\S+) plays (\S+): (.*)$", text)
    if match is not None:
        side, move, words = match.groups()
        line = "%s, %s" % (side_title(side), move_spoken(move))
        taken = re.search(r"take (.+?) off", words)
        if taken is not None:
            line += "; take %s off" % taken.group(1)
        return line
    match = re.match(r"^(\S+) \(\S+\) waits for (\S+)", text)
    if match is not None:
        return "%s waits for %s" % (side_title(match.group(1)), move_spoken(match.group(2)))
    return ""  # thinking, the terminal's hand at work: nothing a player needs to hear


def _spoken_hint(text: str) -> str:
    # ``hint for south: m5xm6-m7 (lift m5, ...), shown on the board; endgame table: win in 1 move ...``
    match = re.match(r"^hint for \S+: (\S+)", text)
    if match is None:
        return "" if text.startswith("looking for") else moves_spoken(text)
    line = "hint: %s" % move_spoken(match.group(1))
    table = re.search(r"endgame table: ((?:win|lost) in \d+ moves?|drawn with best play)", text)
    if table is not None:
        line += "; %s" % table.group(1)
    return line


def _spoken_info(text: str) -> str:
    match = re.match(r"^(\S+) to move \(", text)
    if match is not None:
        return "%s to move" % side_title(match.group(1))
    if " offers " in text:
        return moves_spoken(text.split(": type", 1)[0])
    return ""  # help, the log, the terminal's own notes


def _spoken_link(text: str) -> str:
    if text.startswith("board disconnected"):
        return "the board is disconnected"
    if text.startswith("board") and "connected" in text:
        return "the board is connected"
    if text.startswith("the board restarted"):
        return "the board restarted"
    return ""


_BY_TONE: dict[str, Callable[[str], str]] = {
    "move": _spoken_move_line,
    "ai": _spoken_ai,
    "hint": _spoken_hint,
    "info": _spoken_info,
    "link": _spoken_link,
    "over": _first_sentence,
    "wrong": lambda text: moves_spoken(text.removeprefix("the board: ")),
    "board": lambda text: moves_spoken(text.removeprefix("the board: ")),
}


def spoken(tone: str, text: str) -> str:
    """What a player hears of the controller's line ``text`` said in ``tone``; '' for
    nothing. Tones not listed (error, takeback, ask, clock, answer) are said whole, with
    the moves in words."""
    said = _BY_TONE.get(tone, moves_spoken)(text.strip())
    return said.strip()


@dataclass(frozen=True)
class Utterance:
    """One thing to say: ``text``, and whether it is a move (``cuts``: it cuts short
    what is still queued)."""

    text: str
    cuts: bool = False


def utterance(tone: str, text: str) -> Utterance | None:
    """The utterance of a controller line (None: nothing to say)."""
    said = spoken(tone, text)
    return Utterance(said, tone in MOVE_TONES) if said else None
