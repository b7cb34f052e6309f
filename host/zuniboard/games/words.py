"""What the game says to a player, in a player's words: a move as hands make it, why a
move is refused (the rule, not the sensor difference), how a game ended, what to put
back after a take-back. Pure functions of a ``zuni.Game``; the terminal, the browser
page and the game log's analysis all speak through them.

>>> game = zuni.new_game("mosona")
>>> move_words(game, game.parse_move("s3xm4-m5"))
'lift s3, jump m4 to m5, take m4 off'
>>> refusal(game, "m6-m5")
'm6-m5: a capture is compulsory: s3xm4-m5'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TypedDict

import zuni

# What the terminal's drawing of the board shows (zuniboard.records.text).
MARKS_HELP = "S N W E: pieces (s n w e: bow priests), .: empty, [ ]: the last move's start and end, x: a piece it took"
SHOWN = 3  # a refusal lists at most this many of the moves the rule asks for


def side_title(side: str) -> str:
    """``south`` -> ``South``; ``north+west`` -> ``North and West``."""
    return " and ".join(part.capitalize() for part in side.split("+"))


def mover(game: zuni.Game) -> str:
    return str(zuni.SIDE_NAMES[game.turn])


def move_words(game: zuni.Game, move: zuni.Move) -> str:
    """What hands do on the board for ``move`` (``game`` before it):
    ``lift n5, jump m5 to m4, take m5 off``."""
    names = game.geometry.names
    if move.kind == zuni.PASS:
        return "pass (nothing to do on the board)"
    if move.kind == zuni.DROP:
        text = "put a piece from beside the board on %s" % names[move.dest]
    elif move.kind == zuni.JUMP:
        path = [names[p] for p in move.path]
        parts = ["lift %s" % path[0]]
        for i in range(1, len(path) - 1, 2):
            parts.append("jump %s to %s" % (path[i], path[i + 1]))
        text = ", ".join(parts)
    else:
        text = "lift %s, put it on %s" % (names[move.path[0]], names[move.path[-1]])
    if move.captures:
        taken = [names[p] for p in move.captures]
        text += ", take %s off" % (taken[0] if len(taken) == 1 else " ".join(taken))
    return text


def plays_words(game: zuni.Game, move: zuni.Move) -> str:
    """``North plays n5xm5-m4: lift n5, jump m5 to m4, take m5 off`` (``game`` before it)."""
    return "%s plays %s: %s" % (side_title(mover(game)), move.text(), move_words(game, move))


def _origin_name(text: str) -> str:
    return re.split(r"[-x]", text.strip(), maxsplit=1)[0]


def _listed(moves: Iterable[zuni.Move]) -> str:
    texts = sorted({m.text() for m in moves})
    more = len(texts) - SHOWN
    return ", ".join(texts[:SHOWN]) + (" (and %d more)" % more if more > 0 else "")


def refusal(game: zuni.Game, text: str) -> str:
    """Why ``text`` is not a move now, naming the rule; '' when it is legal."""
    text = text.strip().lower()
    try:
        game.parse_move(text)
        return ""
    except zuni.MoveParseError as exc:
        return str(exc)
    except zuni.IllegalMoveError:
        pass
    if game.is_game_over():
        return "%s: the game is over" % text
    legal = list(game.legal_moves())
    who = side_title(mover(game))
    if not legal:
        return "%s: %s has no move" % (text, who)
    longer = [m for m in legal if m.text().startswith(text + "x")]
    if longer:
        return "%s: the chain must go on: %s" % (text, _listed(longer))
    origin = _origin_name(text)
    names = game.geometry.names
    point = next((i for i, n in enumerate(names) if n == origin), None)
    if point is not None and game.board[point] and zuni.piece_side(game.board[point]) != game.turn:
        owner = side_title(zuni.SIDE_NAMES[zuni.piece_side(game.board[point])])
        return "%s: the piece on %s is %s's; %s is to move" % (text, origin, owner, who)
    captures = [m for m in legal if m.captures]
    if captures and all(m.captures for m in legal) and "x" not in text:
        return "%s: a capture is compulsory: %s" % (text, _listed(captures))
    if origin.startswith("@"):
        drops = [m for m in legal if m.kind == zuni.DROP]
        if not drops:
            return "%s: %s has no piece beside the board to put down" % (text, who)
        return "%s: %s may put a piece down only on %s" % (
            text,
            who,
            " ".join(sorted({str(game.geometry.names[m.dest]) for m in drops})),
        )
    if point is None:  # pragma: no cover - parse_move checked the names
        return "%s: unknown point %s" % (text, origin)
    if not game.board[point]:
        return "%s: %s has no piece on %s" % (text, who, origin)
    from_here = [m for m in legal if m.path and m.path[0] == point]
    if not from_here:
        return "%s: the piece on %s has no legal move now (%s can play %s)" % (text, origin, who, _listed(legal))
    return "%s: not a move of the piece on %s; it can play %s" % (text, origin, _listed(from_here))


def occupied_names(game: zuni.Game) -> set[str]:
    occ = game.occupancy()
    names = game.geometry.names
    return {str(names[i]) for i in range(len(names)) if occ[i]}


def restore_words(want: set[str], shown: set[str]) -> str:
    """What to do so that the board holds pieces on ``want`` when it holds ``shown``:
    ``put a piece back on m4 s3; take the piece off m5``; '' when nothing."""
    back = sorted(want - shown)
    off = sorted(shown - want)
    parts = []
    if back:
        parts.append("put a piece back on %s" % " ".join(back))
    if off:
        parts.append("take the piece%s off %s" % ("s" if len(off) > 1 else "", " ".join(off)))
    return "; ".join(parts)


def board_refusal(game: zuni.Game, missing: Iterable[str], extra: Iterable[str]) -> str:
    """Why what the board senses is no legal move (``missing``: points emptied,
    ``extra``: points filled, against ``game``'s position), in the rule's words."""
    missing = sorted(missing)
    extra = sorted(extra)
    undo = restore_words(set(missing), set(extra))
    if len(missing) == 1 and len(extra) == 1:
        why = refusal(game, "%s-%s" % (missing[0], extra[0]))
        if why:
            return "%s (%s)" % (why, undo)
    return "no legal move leaves the board like this: %s" % undo


def board_error_words(game: zuni.Game, error: str) -> str:
    """The board's error report (``missing: m6; extra: m5``, ``m6 may not move``) said
    as the rule that refused the move; other reports as they are."""
    error = error.replace("_", " ").strip()
    if error.startswith("missing: "):
        missing, _, extra = error[len("missing: ") :].partition("; extra: ")
        return board_refusal(game, [p for p in missing.split() if p != "-"], [p for p in extra.split() if p != "-"])
    expected = re.match(r"^expected (\S+), the board shows (.+)$", error)
    if expected and not game.is_game_over():
        try:
            move = game.parse_move(expected.group(1))
        except zuni.MoveError:
            return error
        seen = expected.group(2)
        return "the board shows %s, not %s's move %s (%s): put it right (the red points)" % (
            seen if seen == "another position" else "the move " + seen,
            side_title(mover(game)),
            move.text(),
            move_words(game, move),
        )
    match = re.match(r"^(\S+) may not move$", error)
    if match and not game.is_game_over():
        point = match.group(1)
        legal = list(game.legal_moves())
        captures = [m for m in legal if m.captures]
        if captures and all(m.captures for m in legal):
            return "%s may not move: a capture is compulsory: %s (put it back)" % (point, _listed(captures))
        return "%s may not move now (put it back); %s can play %s" % (point, side_title(mover(game)), _listed(legal))
    return error


def outcome_words(game: zuni.Game, outcome: zuni.Outcome) -> str:
    """``North wins: South has no pieces left`` (the score where the game keeps one)."""
    result = str(outcome.result)
    sides = [str(s) for s in game.team_names()] if hasattr(game, "team_names") else ["south", "north"]
    if result == "draw":
        head = "A draw"
        loser = ""
    else:
        head = "%s win%s" % (side_title(result), "" if "+" in result else "s")
        losers = [s for s in sides if s != result]
        loser = side_title(losers[0]) if losers else "the other side"
    why = {
        "no-pieces": "%s has no pieces left" % loser,
        "no-moves": "%s cannot move" % loser,
        "resign": "%s resigned" % loser,
        "time": "%s ran out of time" % loser,
        "agreed-draw": "both sides agreed",
        "agreed-count": "both sides agreed to end the game and count the pieces",
        "quiet": "too many moves went by without a capture, so the pieces were counted",
        "blocked": "nobody can move any more, so the pieces were counted",
        "abandoned": "%s was gone too long and the win was claimed" % loser,
        "abandoned-draw": "a player was gone too long and a draw was claimed",
    }.get(str(outcome.termination), str(outcome.termination))
    if outcome.termination == "time" and result != "draw":
        head += " on time"  # ``North wins on time: South ran out of time``
    text = "%s: %s" % (head, why)
    if outcome.scores is not None:
        text += " (score %s %d, %s %d)" % (
            side_title(sides[0]),
            outcome.scores[0],
            side_title(sides[1]),
            outcome.scores[1],
        )
    return text


def moves_per_round(ruleset: zuni.Ruleset) -> int:
    """Moves under one move number: 4 when four players take separate turns, else 2."""
    if ruleset.game_id == "awithlaknakwe" and ruleset["players"] == "4" and ruleset["teams"] == "separate":
        return 4
    return 2


def numbered_moves(game: zuni.Game, moves: list[str]) -> str:
    """``1. s3xm4-m5 n5xm5-m4 2. m6-m5``: every move, numbered by rounds."""
    per = moves_per_round(game.ruleset)
    return " ".join(("%d. " % (i // per + 1) if i % per == 0 else "") + text for i, text in enumerate(moves))


def count_words(n: int, word: str) -> str:
    """``1 move``, ``2 moves``."""
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


def table_words(result: str, moves: int) -> str:
    """An endgame table's verdict for the side to move, in words (docs/tablebases.md).

    ``moves`` counts the moves of both sides from now to the end of the game with best
    play, the next move included (a move is one player's turn, as everywhere in these
    rules): a win in 5 is won by the 5th move from now, 3 of them the winner's.

    >>> table_words("win", 5)
    'win in 5 moves (3 of them yours)'
    >>> table_words("loss", 2)
    'lost in 2 moves (1 of them yours)'
    >>> table_words("win", 1)
    'win in 1 move (this one)'
    >>> table_words("draw", 0)
    'drawn with best play'
    """
    if result == "draw":
        return "drawn with best play"
    head = "win in" if result == "win" else "lost in"
    if moves == 1:
        return "%s 1 move (this one)" % head
    yours = (moves + 1) // 2  # the side to move makes moves 1, 3, 5, ...
    return "%s %s (%d of them yours)" % (head, count_words(moves, "move"), yours)


def hint_words(side: str, text: str, how: str, verdict: str, shown: bool) -> str:
    """The terminal's line for a hint: ``hint for south: m5xm6-m7 (lift m5, ...), shown
    on the board; endgame table: win in 1 move (1 of them yours)``."""
    line = "hint for %s: %s" % (side, text)
    if how:
        line += " (%s)" % how
    if shown:
        line += ", shown on the board"
    if verdict:
        line += "; endgame table: %s" % verdict
    return line


class HintNote(TypedDict):
    """The hint as the page shows it beside the board (its state's ``hint``)."""

    side: str  # the side's title (South)
    move: str
    words: str  # the move in words ('' when it does not parse)
    verdict: str  # the endgame tables' verdict in words ('' none)
    moves: int  # the position it is for: after this many moves


def hint_note(game: zuni.Game, side: str, text: str, verdict: str) -> HintNote:
    """The hint as the browser page shows it beside the board (its state's ``hint``):
    for the position after ``moves`` moves of the game."""
    try:
        how = move_words(game, game.parse_move(text))
    except zuni.MoveError:
        how = ""
    return {
        "side": side_title(side),
        "move": text,
        "words": how,
        "verdict": verdict,
        "moves": len(game.move_stack),
    }


def position_words(game: zuni.Game, clocks: str = "") -> str:
    """The position in words (the ``where`` question): whose turn, each side's pieces by
    point (a bow priest named as such), the clocks (``clocks``: their text, '' none).

    >>> position_words(zuni.new_game("mosona")).split(". ")[0]
    'South to move'
    """
    names = game.geometry.names
    by_side: dict[int, list[str]] = {}
    for point in range(len(names)):
        piece = game.piece_at(point)
        if piece is None:
            continue
        side, kind = piece
        name = str(names[point]) + (" (bow priest)" if kind == zuni.PRIEST else "")
        by_side.setdefault(side, []).append(name)
    outcome = game.outcome()
    parts = [outcome_words(game, outcome) if outcome is not None else "%s to move" % side_title(mover(game))]
    for side in sorted(by_side, key=lambda s: (s != game.turn, s)):
        points = sorted(by_side[side], key=_point_order)
        parts.append(
            "%s, %s: %s" % (side_title(zuni.SIDE_NAMES[side]), count_words(len(points), "piece"), " ".join(points))
        )
    for side in range(len(zuni.SIDE_NAMES)):
        if side not in by_side and side in _sides_of(game):
            parts.append("%s: no pieces on the board" % side_title(zuni.SIDE_NAMES[side]))
    if clocks:
        parts.append("Clocks: %s" % clocks)
    return ". ".join(parts)


def _point_order(name: str) -> tuple[str, int]:
    match = re.match(r"([a-z]+)(\d+)", name)
    return (match.group(1), int(match.group(2))) if match else (name, 0)


def _sides_of(game: zuni.Game) -> set[int]:
    names = [str(s) for s in game.team_names()] if hasattr(game, "team_names") else ["south", "north"]
    return {zuni.SIDE_NAMES.index(part) for name in names for part in name.split("+")}


def piece_moves_words(game: zuni.Game, point_name: str) -> str:
    """The moves of the piece on ``point_name`` (the ``moves`` question), or why it has none.

    >>> piece_moves_words(zuni.new_game("mosona"), "s3")
    's3, South piece: 1 move: s3xm4-m5 (lift s3, jump m4 to m5, take m4 off)'
    """
    names = [str(n) for n in game.geometry.names]
    name = point_name.strip().lower()
    if name not in names:
        return "moves %s: no such point (the points are named like %s)" % (point_name, " ".join(names[:3]))
    point = names.index(name)
    piece = game.piece_at(point)
    if piece is None:
        return "%s is empty" % name
    side, kind = piece
    what = "%s %s" % (side_title(zuni.SIDE_NAMES[side]), "bow priest" if kind == zuni.PRIEST else "piece")
    if game.is_game_over():
        return "%s, %s: the game is over" % (name, what)
    if side != game.turn:
        return "%s, %s: %s is to move" % (name, what, side_title(mover(game)))
    mine = sorted((m for m in game.legal_moves() if m.path and m.path[0] == point), key=lambda m: m.text())
    if not mine:
        legal = list(game.legal_moves())
        captures = [m for m in legal if m.captures]
        forced = captures and all(m.captures for m in legal)
        why = " (a capture is compulsory: %s)" % _listed(captures) if forced else ""
        return "%s, %s: no legal move now%s" % (name, what, why)
    listed = "; ".join("%s (%s)" % (m.text(), move_words(game, m)) for m in mine)
    return "%s, %s: %s: %s" % (name, what, count_words(len(mine), "move"), listed)
