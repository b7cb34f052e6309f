"""`zuni play --from X`: the position a new game starts from (``start_from``).

``X`` is one of:

- ``GAME:N``: logged game number GAME (`zuni log list`) after its first N moves
  (``GAME`` alone: after all of them); the new game is logged with the tags
  ``FromGame`` and ``FromPly``;
- a record file (``.pgn``, ``.json``: `zuni log export`, possibly with a ``Position``
  tag), optionally ``FILE:N`` (after N moves; default all of its moves);
- a position text in the one-line form of docs/rules.md ("Positions as text"), e.g.
  ``"mosona | north to move | south s3 s5 | north m4"``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import zuni
from zuni.position import PositionError, parse_position, position_text
from zuniboard.records import formats
from zuniboard.records.db import Database, DatabaseError
from zuniboard.records.record import GameRecord
from zuniboard.replay.cursor import ReplayCursor, ReplayError


class StartFromError(ValueError):
    """``--from``'s text names no position (the message says which form failed)."""


@dataclass(frozen=True)
class StartFrom:
    """A position to start from, and the log tags that say where it came from."""

    position: str
    ruleset: str
    tags: dict[str, str] = field(default_factory=dict)


_GAME_AT = re.compile(r"^#?(\d+|last)(?::(\d+))?$")


def _at(record: GameRecord, ply: int | None, what: str) -> ReplayCursor:
    """A replay cursor on the record's game after ``ply`` moves (None: all of them): the
    one way a new game is made from a recorded move, as the replay's "play on" does
    (``ReplayCursor.branch``: the position and the tags that say where it came from)."""
    try:
        cursor = ReplayCursor(record)
    except ReplayError as exc:
        raise StartFromError("%s: %s" % (what, exc))
    if ply is None:
        ply = cursor.length
    if ply > cursor.length:
        raise StartFromError("%s has %d moves: no move %d to start after" % (what, cursor.length, ply))
    cursor.go_to(ply)
    if cursor.game.is_game_over():
        raise StartFromError("%s: the game is over after %d moves: nothing to play from there" % (what, ply))
    return cursor


def start_from(text: str, db: Database | None) -> StartFrom:
    """The position ``--from text`` names (see the module's forms)."""
    text = text.strip()
    m = _GAME_AT.match(text)
    if m is not None:
        return _from_log(text, m, db)
    if "|" in text:
        return _from_position_text(text)
    return _from_file(text)


def _from_log(text: str, m: re.Match[str], db: Database | None) -> StartFrom:
    """``GAME[:N]`` (``m``: its match): a logged game after N moves."""
    if db is None:
        raise StartFromError("--from %s: a logged game needs the game log" % text)
    if m.group(1) == "last":  # the newest logged game with moves, as `zuni log show last`
        with_moves = [g.id for g in db.list_games() if g.moves]
        if not with_moves:
            raise StartFromError("--from last: no game with moves in the log %s" % db.path)
        gid = with_moves[0]
    else:
        gid = int(m.group(1))
    try:
        record = db.get(gid)
    except (DatabaseError, KeyError, LookupError) as exc:
        raise StartFromError("--from %s: no game #%d in the log %s (%s)" % (text, gid, db.path, exc))
    ply = None if m.group(2) is None else int(m.group(2))
    cursor = _at(record, ply, "game #%d" % gid)
    branch = cursor.branch({})  # its tags: FromGame, FromPly
    return StartFrom(cursor.position(), str(cursor.game.ruleset), branch.tags)


def _from_position_text(text: str) -> StartFrom:
    """A position text (docs/rules.md, "Positions as text")."""
    try:
        game = parse_position(text)
    except (PositionError, zuni.ZuniError) as exc:
        raise StartFromError("--from: %s" % exc)
    if game.is_game_over():
        raise StartFromError("--from %r: the game is already over in that position" % text)
    return StartFrom(position_text(game), str(game.ruleset))


def _from_file(text: str) -> StartFrom:
    """A record file, ``FILE[:N]`` (after N moves; default all of them)."""
    path_text, ply_text = text, None
    cut = text.rfind(":")
    if cut > 0 and text[cut + 1 :].isdigit() and not Path(text).exists():
        path_text, ply_text = text[:cut], text[cut + 1 :]
    path = Path(path_text)
    if not path.exists() and ("." in path.name or "/" in path_text or os.sep in path_text):
        raise StartFromError(
            "--from %s: no such file (and not GAME[:N] (a logged game), a record file or a position text "
            "('RULESET | SIDE to move | SIDE POINTS... | ...', docs/rules.md))" % path_text
        )
    if not path.is_file():
        raise StartFromError(
            "--from %r: not GAME[:N] (a logged game), a record file or a position text "
            "('RULESET | SIDE to move | SIDE POINTS... | ...', docs/rules.md)" % text
        )
    try:
        if path.stat().st_size > formats.MAX_FILE_BYTES:
            raise StartFromError(
                "--from %s: %s, too big for a game record file (at most %d MB)"
                % (path, "%.0f MB" % (path.stat().st_size / 1e6), formats.MAX_FILE_BYTES // 1000000)
            )
        raw = path.read_bytes()
        if b"\0" in raw:
            raise StartFromError("--from %s: a binary file, not a game record (a .pgn or .json text file)" % path)
        records, errors = formats.parse(raw.decode("utf-8"), formats.format_for_path(str(path)))
    except UnicodeDecodeError as exc:
        raise StartFromError("--from %s: not a UTF-8 text file (byte %d), not a game record" % (path, exc.start))
    except (OSError, ValueError) as exc:
        raise StartFromError("--from %s: %s" % (path, exc))
    if errors:
        raise StartFromError("--from %s: %s" % (path, errors[0]))
    if not records:
        raise StartFromError("--from %s: no game record in the file" % path)
    cursor = _at(records[0], None if ply_text is None else int(ply_text), str(path))
    return StartFrom(cursor.position(), str(cursor.game.ruleset))
