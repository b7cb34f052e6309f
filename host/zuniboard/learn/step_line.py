"""A lesson step's line, read against the board's game: which entry a move answers, what
the board does next in it, and the words for a wrong attempt. Pure functions of the step,
its game and the line's next entry ``k``, for ``controller.LessonController``."""

from __future__ import annotations

import zuni
from zuni.position import position_text
from zuniboard.games.words import move_words
from zuniboard.learn.lessons import Step, first_move, is_reply, matches
from zuniboard.play.actions import Action, MakeMove, Request, SetUp, request, say

Entry = tuple[str, ...]


def setup_request(step: Step, game: zuni.Game) -> Action:
    """Set the step's position up: a new game where it is the rules' start (the board
    sets that up in one go, and a whole start is too long for the ``setup`` line on the
    49-point board), else the staged setup of the position."""
    start = zuni.new_game(game.ruleset)
    if position_text(start) == position_text(game):
        return Request("setup", (str(game.ruleset), "new"))
    return Request("setup", (step.position,))


def hand_sets_up(side: str) -> list[Action]:
    """On the virtual board, the terminal's hand places the pieces of the sides up to
    ``side`` (a staged setup's step) and presses OK."""
    return [SetUp(tuple(range(zuni.SIDE_NAMES.index(side) + 1))), request("press_ok")]


def sides_words(game: zuni.Game) -> str:
    """Where each side's pieces stand, for setting the position up by hand."""
    names = game.geometry.names
    board = game.board
    parts = []
    for side in range(4):
        points = [
            str(names[i]) + (" ({priest})" if zuni.piece_kind(board[i]) == zuni.PRIEST else "")
            for i in range(len(names))
            if board[i] and zuni.piece_side(board[i]) == side
        ]
        if points:
            parts.append("%s: %s" % (zuni.SIDE_NAMES[side].capitalize(), " ".join(points)))
    return "; ".join(parts) or "no pieces"


def how(game: zuni.Game, text: str) -> str:
    """Move ``text`` in words, or the text itself when the rules refuse it."""
    try:
        return move_words(game, game.parse_move(text))
    except zuni.MoveError:
        return text


def entry_at(line: tuple[Entry, ...], ply: int) -> int:
    """The line's entry for the move after ``ply`` moves of the step."""
    k, seen = 0, 0
    for k, entry in enumerate(line):
        if entry[0] in ("hint", "takeback"):
            continue
        if seen == ply:
            return k
        seen += 1
    return len(line)


def follow(
    game: zuni.Game, line: tuple[Entry, ...], k: int, hinted: bool, move: zuni.Move, text: str
) -> tuple[int, Entry | None, bool]:
    """The entry that move ``move`` (``text``, about to be played in ``game``) answers:
    (its index, the entry or None past the line's end, whether the move is that entry's)."""
    entry = line[k] if k < len(line) else None
    while entry is not None and entry[0] == "hint" and hinted:
        k += 1
        entry = line[k] if k < len(line) else None
    if entry is not None and entry[0] == "hint":
        # Played without asking for the hint: fine if it is the move asked for.
        nxt = line[k + 1]
        if matches(game, nxt, move):
            k += 1
            entry = nxt
    ok = False
    if entry is not None:
        if is_reply(entry):
            ok = text == entry[0][1:]
        elif entry[0] == "pass":
            ok = text == "pass"
        elif entry[0] not in ("hint", "takeback"):
            ok = matches(game, entry, move)
    return k, entry, ok


def board_turn(game: zuni.Game, entry: Entry | None, hand: bool) -> list[Action]:
    """What the board does next in the line: show the lesson's reply, or wait."""
    if entry is None or game.is_game_over():
        return []
    if is_reply(entry):
        text = entry[0][1:]
        side = str(zuni.SIDE_NAMES[game.turn])
        out = [
            request("host_move", text),
            say("%s replies %s: %s; carry it out" % (side.capitalize(), text, how(game, text)), "ai"),
        ]
        if hand:
            out.append(MakeMove(game.parse_move(text)))
        return out
    if entry[0] == "pass":
        return [say("%s has no legal move: the board passes for it" % zuni.SIDE_NAMES[game.turn].capitalize(), "board")]
    if entry[0] == "hint":
        return [say("ask for a hint: press HINT on the board or type hint", "task")]
    if entry[0] == "takeback":
        return [say("now take it back: put the pieces back as they were before it", "task")]
    return []


def wrong_move_why(step: Step, k: int, before: zuni.Game, move: zuni.Move, entry: Entry | None) -> str:
    """Why ``move``, played in ``before`` at the line's entry ``k``, is not the task."""
    text = move.text()
    why = step.wrong.get("%d:%s" % (k, text)) or step.wrong.get(text) or step.why
    if entry is not None and is_reply(entry):
        return "the board shows %s's move %s: carry out that one" % (zuni.SIDE_NAMES[before.turn], entry[0][1:])
    if not why:
        want = first_move(before, entry) if entry is not None and entry[0] not in ("hint", "takeback", "pass") else None
        why = "this step asks for %s" % (want.text() if want is not None else "another move")
    return str(why)


def error_why(step: Step, k: int, text: str) -> str:
    """The step's own words for the board's error report ``text`` (a move the rules
    refuse, as the board saw it), or ''."""
    error = text.replace("_", " ").strip()
    if error.startswith("missing: "):
        missing, _, added = error[len("missing: ") :].partition("; extra: ")
        gone = [p for p in missing.split() if p != "-"]
        new = [p for p in added.split() if p != "-"]
        if len(gone) == 1 and len(new) == 1:
            attempt = "%s-%s" % (gone[0], new[0])
            return str(step.wrong.get("%d:%s" % (k, attempt)) or step.wrong.get(attempt, ""))
    elif error.endswith(" may not move"):
        point = error.split()[0]
        return next((why for key, why in step.wrong.items() if key.startswith(point + "-")), "")
    return ""
