"""Hand-made positions as one line of text, for every game: ``parse_position``/``position_text``.

The form (documented in docs/rules.md, "Positions as text"): fields separated by ``|``,

    RULESET | SIDE to move | SIDE POINT... [priest SQUARE|hand|gone] | ... | quiet N | taken A B

- ``RULESET``: a ruleset string as docs/rules.md writes it (``kolowis size=short``).
- ``SIDE to move``: ``south``, ``north`` (and ``west``, ``east`` with 4 players; with
  ``teams=combined`` the team's first player, ``south`` or ``north``).
- One field per side: its name, then the points its pieces (warriors) stand on; in
  Awithlaknakwe ``priest SQUARE`` for its bow priest on the board, ``priest hand`` for a
  priest available to drop, ``priest gone`` for a captured one (no word: not yet
  available). A side with no pieces may be left out.
- ``quiet N``: the quiet count (default 0); ``taken A B`` (Awithlaknakwe): captures made
  so far by South's team and North's team (default 0 0).

>>> game = parse_position("mosona | south to move | south s3 | north m4")
>>> sorted(str(m) for m in game.legal_moves())
['s3xm4-m5', 's3xm4-n3', 's3xm4-n4']
>>> position_text(game)
'mosona | south to move | south s3 | north m4 | quiet 0'

Loaded only where a position is set up (the host, or the board's setup from a position),
so that a board playing from the start never holds this code.
"""

import zuni
from zuni.core import SIDE_NAMES
from zuni.errors import ZuniError


class PositionError(ZuniError):
    """A position text that cannot be read; the message names the bad field."""


def _fields(text):
    fields = [f.strip() for f in text.split("|")]
    if len(fields) < 2 or not fields[0]:
        raise PositionError(
            "position %r: expected 'RULESET | SIDE to move | SIDE POINTS... | ...' (fields separated by |)" % (text,)
        )
    return fields


def parse_position(text):
    """The game in the position ``text`` describes, with an empty history."""
    fields = _fields(text)
    try:
        ruleset = zuni.parse_ruleset(fields[0])
    except ZuniError as exc:
        raise PositionError("position %r: %s" % (text, exc))
    words = fields[1].split()
    if len(words) != 3 or words[1:] != ["to", "move"]:
        raise PositionError("position %r: second field must be 'SIDE to move', not %r" % (text, fields[1]))
    turn = words[0]
    sides = {}
    quiet = 0
    taken = (0, 0)
    for field in fields[2:]:
        words = field.split()
        if not words:
            raise PositionError("position %r: an empty field" % (text,))
        head = words[0]
        if head == "quiet":
            quiet = _counts(text, field, words, 1)[0]
        elif head == "taken":
            taken = _counts(text, field, words, 2)
        elif head in SIDE_NAMES:
            if head in sides:
                raise PositionError("position %r: %s is given twice" % (text, head))
            sides[head] = words[1:]
        else:
            raise PositionError("position %r: unknown field %r (a side name, 'quiet N' or 'taken A B')" % (text, field))
    try:
        if ruleset.game_id == "awithlaknakwe":
            return _awith(ruleset, text, turn, sides, quiet, taken)
        if taken != (0, 0):
            raise PositionError("position %r: 'taken' is for Awithlaknakwe only" % (text,))
        return _line(ruleset, text, turn, sides, quiet)
    except PositionError:
        raise
    except ZuniError as exc:
        raise PositionError("position %r: %s" % (text, exc))


def _counts(text, field, words, n):
    if len(words) != n + 1:
        raise PositionError("position %r: bad field %r (%s and %d number%s)" % (text, field, words[0], n, "s"[: n - 1]))
    values = []
    for w in words[1:]:
        if not w.isdigit():
            raise PositionError("position %r: bad number %r in %r" % (text, w, field))
        values.append(int(w))
    return tuple(values)


def _line(ruleset, text, turn, sides, quiet):
    parts = []
    for name in sides:
        if name not in ("south", "north"):
            raise PositionError("position %r: a line game has no %s" % (text, name))
        for w in sides[name]:
            if w == "priest":
                raise PositionError("position %r: a line game has no priests" % (text,))
        parts.append(name)
        parts.extend(sides[name])
    from zuni.line import LineGame

    return LineGame.from_position(ruleset, " ".join(parts), turn, quiet)


def _awith(ruleset, text, turn, sides, quiet, taken):
    pieces = {}  # type: dict[str, str]
    priests = {}  # type: dict[str, str]
    for name in sides:
        letter = name[0]
        words = sides[name]
        i = 0
        while i < len(words):
            w = words[i]
            if w == "priest":
                if i + 1 >= len(words):
                    raise PositionError("position %r: 'priest' of %s needs a square, hand or gone" % (text, name))
                where = words[i + 1]
                if name in priests or letter.upper() in [pieces[k] for k in pieces]:
                    raise PositionError("position %r: %s has two priests" % (text, name))
                if where in ("hand", "gone"):
                    priests[name] = where
                else:
                    _put(text, pieces, where, letter.upper())
                i += 2
                continue
            _put(text, pieces, w, letter)
            i += 1
    from zuni.awith import AwithGame

    return AwithGame.from_position(ruleset, pieces, turn, priests, quiet, taken)


def _put(text, pieces, square, letter):
    if square in pieces:
        raise PositionError("position %r: square %s is given twice" % (text, square))
    pieces[square] = letter


def position_text(game):
    """The one-line text of ``game``'s current position (``parse_position`` reads it back)."""
    ruleset = str(game.ruleset)
    fields = [ruleset, "%s to move" % SIDE_NAMES[game.turn]]
    if game.ruleset.game_id == "awithlaknakwe":
        from zuni.awith_pos import position

        pieces, _turn, priests = position(game)
        for s in game.sides:
            name = SIDE_NAMES[s]
            letter = name[0]
            words = [name]
            priest = priests.get(name)
            for sq in sorted(pieces, key=_square_order):
                if pieces[sq] == letter:
                    words.append(sq)
                elif pieces[sq] == letter.upper():
                    priest = sq
            if priest is not None and priest != "none":
                words.append("priest")
                words.append(priest)
            if len(words) > 1:
                fields.append(" ".join(words))
        fields.append("quiet %d" % game.quiet)
        fields.append("taken %d %d" % (game.taken[0], game.taken[1]))
    else:
        # LineGame.position_text: "south s3 m6 north m4 n5" (both side names always there).
        words = game.position_text().split()
        cut = words.index("north")
        for part in (words[:cut], words[cut:]):
            if len(part) > 1:
                fields.append(" ".join(part))
        fields.append("quiet %d" % game.quiet)
    return " | ".join(fields)


def _square_order(name):
    # Rank, then file: a1 < b1 < ... < a2, as a player reads a row.
    return (int(name[1:]), name[0])
