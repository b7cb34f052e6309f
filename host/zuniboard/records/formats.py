"""Record formats: a PGN-like text format and JSON (docs/records.md describes both).

Text ("pgn"):

    [Ruleset "mosona"]
    [South "human"]
    [North "ai:3"]
    [Date "2024.05.01"]
    [Result "south"]
    [Termination "no-pieces"]

    1. s3xm4-m5 {[%time 2024-05-01T12:00:03.250Z]} m4-m5 2. ... south

Reading never stops at a bad record: ``parse`` returns the records it could read and a
RecordError (naming the line) for each one it could not, so that the good records of a
file still import. Moves are checked by the rules engine when a record is replayed
(``record.replay``, done by ``Database.import_record``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from zuniboard.records.record import (
    SIDES,
    UNFINISHED,
    GameRecord,
    MoveEntry,
    RecordError,
    help_text,
    parse_help,
    parse_ruleset,
)

FORMATS = ("pgn", "json")
JSON_FORMAT_NAME = "zuniboard-games"
# Version 2 added a game's "position" and "time_control" and a move's "elapsed_ms" and
# "clock_ms"; version 3 a game's "help" and "hint_limit" and a move's "grade" and
# "grade_words". Versions 1 and 2 are still read.
JSON_VERSION = 3
JSON_VERSIONS_READ = (1, 2, 3)

# Tags with a field of their own, in the order they are written. Other tags follow,
# sorted, from GameRecord.tags.
_LEADING_TAGS = ("Event", "Site", "Date", "Round")
_FIELD_TAGS = {
    "Ruleset": "ruleset",
    "Result": "result",
    "Termination": "termination",
    "Score": "score",
    "Start": "started",
    "End": "ended",
    "Board": "board",
    "Layout": "layout",
    "BoardGameId": "board_game_id",
    "Position": "position",
    "TimeControl": "time_control",
}
_SIDE_TAGS = {side.capitalize(): side for side in SIDES}
_TAG_LINE = re.compile(r'^\[([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]$')
_MOVE_NUMBER = re.compile(r"^\d+\.+")
_TIME_COMMENT = re.compile(r"^\[%time\s+(\S+)\]$")
# PGN's clock commands: the time a move took and the mover's clock after it, h:mm:ss(.s).
_CLOCK_COMMENT = re.compile(r"^\[%(emt|clk)\s+(-?)(\d+):(\d\d):(\d\d(?:\.\d{1,3})?)\]$")
# A move's grade and why, as the mover's help gave it: [%grade blunder missed a win in 1].
_GRADE_COMMENT = re.compile(r"^\[%grade\s+([a-z]+)(?:\s+([^\]]*?))?\s*\]$")
_WRAP = 79
# The biggest record file read (import, --from): a game is a few kB, so this is thousands
# of games; a bigger file is no record file, and read whole it would take gigabytes.
MAX_FILE_BYTES = 64 * 1000 * 1000
MAX_QUOTE = 40  # the longest piece of a bad input quoted in a message


def clip(text: str, limit: int = MAX_QUOTE) -> str:
    """``text`` shortened for a message (a 400 MB "move" is not printed whole)."""
    return text if len(text) <= limit else text[: limit - 3] + "..." + " (%d characters)" % len(text)


def format_for_path(path: str) -> str:
    """The format a file name implies: .json is JSON, anything else the text format."""
    return "json" if path.lower().endswith(".json") else "pgn"


def export(records: Sequence[GameRecord], fmt: str) -> str:
    if fmt == "pgn":
        return "\n".join(write_pgn(record) for record in records)
    if fmt == "json":
        return write_json(records)
    raise ValueError("unknown record format %r (allowed: %s)" % (fmt, ", ".join(FORMATS)))


def parse(text: str, fmt: str) -> tuple[list[GameRecord], list[RecordError]]:
    """The records in ``text`` and an error for each record that could not be read."""
    if fmt == "pgn":
        return read_pgn(text)
    if fmt == "json":
        return read_json(text)
    raise ValueError("unknown record format %r (allowed: %s)" % (fmt, ", ".join(FORMATS)))


# -- text format -------------------------------------------------------------------
def _quote(value: str) -> str:
    return '"%s"' % " ".join(value.splitlines()).replace("\\", "\\\\").replace('"', '\\"')


def _unquote(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def _moves_per_number(ruleset: str) -> int:
    """Moves under one move number: one round of the players who take turns."""
    try:
        parsed = parse_ruleset(ruleset)
    except RecordError:
        return 2
    if parsed.game_id == "awithlaknakwe" and parsed["players"] == "4" and parsed["teams"] == "separate":
        return 4
    return 2


def clock_text(ms: int) -> str:
    """PGN's clock form of ``ms``: ``0:04:53.2`` (tenths; negative after a flag fall)."""
    sign = "-" if ms < 0 else ""
    tenths = (abs(ms) + 50) // 100
    seconds, tenth = divmod(tenths, 10)
    minutes, second = divmod(seconds, 60)
    hours, minute = divmod(minutes, 60)
    return "%s%d:%02d:%02d.%d" % (sign, hours, minute, second, tenth)


def _clock_ms(match: re.Match[str]) -> int:
    sign, hours, minutes, seconds = match.group(2), int(match.group(3)), int(match.group(4)), match.group(5)
    ms = ((hours * 60 + minutes) * 60) * 1000 + round(float(seconds) * 1000)
    return -ms if sign else ms


def write_pgn(record: GameRecord, *, times: bool = True) -> str:
    """One record in the text format, ending with a blank line; ``times=False`` leaves
    out the time comments (for reading on a screen)."""
    lines = ["[%s %s]" % (name, _quote(value)) for name, value in _pgn_tags(record)]
    lines.append("")
    units: list[str] = []
    group = _moves_per_number(record.ruleset)
    for index, move in enumerate(record.moves):
        unit = move.text
        if index % group == 0:
            unit = "%d. %s" % (index // group + 1, unit)
        commands = _move_commands(move, times)
        if commands:
            unit += " {%s}" % " ".join(commands)
        units.append(unit)
    units.append(record.result)
    line = ""
    for unit in units:
        if line and len(line) + 1 + len(unit) > _WRAP:
            lines.append(line)
            line = unit
        else:
            line = unit if not line else line + " " + unit
    lines.append(line)
    lines.append("")
    return "\n".join(lines) + "\n"


def _pgn_tags(record: GameRecord) -> list[tuple[str, str]]:
    """The record's tags in the text format's order: the leading ones, the game's, then the rest."""
    tags: list[tuple[str, str]] = []
    for name in _LEADING_TAGS:
        if name == "Date":
            if record.started:
                tags.append(("Date", record.started[:10].replace("-", ".")))
            elif "Date" in record.tags:
                tags.append(("Date", record.tags["Date"]))
        elif name in record.tags:
            tags.append((name, record.tags[name]))
    tags.append(("Ruleset", record.ruleset))
    for name, side in _SIDE_TAGS.items():
        if side in record.players:
            tags.append((name, record.players[side]))
    tags.append(("Result", record.result))
    for name in ("Termination", "Score", "Start", "End", "Board", "Layout", "BoardGameId", "Position", "TimeControl"):
        value = getattr(record, _FIELD_TAGS[name])
        if name == "Start" and value is not None and len(value) <= 10:
            continue  # a date only: [Date] says it all
        if value is not None:
            tags.append((name, value))
    if record.help:
        tags.append(("Help", help_text(record.help)))
    if record.hint_limit is not None:
        tags.append(("HintLimit", str(record.hint_limit)))
    for name in sorted(record.tags):
        if name not in _LEADING_TAGS:
            tags.append((name, record.tags[name]))
    return tags


def _move_commands(move: MoveEntry, times: bool) -> list[str]:
    """The comment commands of one move: its time, time taken, clock and grade."""
    commands: list[str] = []
    if times and move.time is not None:
        commands.append("[%%time %s]" % move.time)
    if move.elapsed_ms is not None:
        commands.append("[%%emt %s]" % clock_text(move.elapsed_ms))
    if move.clock_ms is not None:
        commands.append("[%%clk %s]" % clock_text(move.clock_ms))
    if move.grade is not None:
        commands.append(grade_command(move.grade, move.grade_words))
    return commands


def grade_command(grade: str, words: str | None) -> str:
    """A move's grade as a comment command: ``[%grade blunder missed a win in 1]`` (the
    words without the brackets and braces that would end the command or the comment)."""
    clean = " ".join((words or "").replace("]", ")").replace("[", "(").replace("}", ")").replace("{", "(").split())
    return "[%%grade %s%s]" % (grade, " " + clean if clean else "")


class _PgnRecord:
    """What one record of a text file holds before it becomes a GameRecord."""

    def __init__(self, line: int) -> None:
        self.line = line
        self.tags: dict[str, tuple[str, int]] = {}
        self.tokens: list[tuple[str, int]] = []
        self.error: RecordError | None = None

    def fail(self, message: str, line: int) -> None:
        if self.error is None:
            self.error = RecordError(message, line)


def read_pgn(text: str) -> tuple[list[GameRecord], list[RecordError]]:
    raw: list[_PgnRecord] = []
    current: _PgnRecord | None = None
    comment: list[str] | None = None  # an open {...} comment running over lines
    comment_line = 0
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if comment is None:
            if not stripped or stripped.startswith("%"):
                continue
            if stripped.startswith("["):
                if current is None or current.tokens:
                    current = _PgnRecord(number)
                    raw.append(current)
                _read_tag(current, stripped, number)
                continue
        if current is None:
            current = _PgnRecord(number)
            raw.append(current)
        pos = 0
        while pos < len(line):
            if comment is not None:
                end = line.find("}", pos)
                if end < 0:
                    comment.append(line[pos:])
                    break
                comment.append(line[pos:end])
                current.tokens.append(("{" + " ".join(comment).strip() + "}", comment_line))
                comment = None
                pos = end + 1
                continue
            char = line[pos]
            if char.isspace():
                pos += 1
            elif char == ";":
                break
            elif char == "{":
                comment = []
                comment_line = number
                pos += 1
            else:
                end = pos
                while end < len(line) and not line[end].isspace() and line[end] not in "{;":
                    end += 1
                current.tokens.append((line[pos:end], number))
                pos = end
    if comment is not None and current is not None:
        current.fail("comment opened here is never closed with }", comment_line)
    records: list[GameRecord] = []
    errors: list[RecordError] = []
    for item in raw:
        try:
            record = _build_pgn(item)
        except RecordError as exc:
            errors.append(exc)
        else:
            records.append(record)
    return records, errors


def _read_tag(record: _PgnRecord, text: str, line: int) -> None:
    match = _TAG_LINE.match(text)
    if match is None:
        record.fail('malformed tag line %r (expected [Name "value"])' % (text,), line)
        return
    name, value = match.group(1), _unquote(match.group(2))
    if name in record.tags:
        record.fail("tag %s given twice (first on line %d)" % (name, record.tags[name][1]), line)
        return
    record.tags[name] = (value, line)


_COMMAND = re.compile(r"\[%[^\]]*\]")


def _read_commands(move: MoveEntry, comment: str) -> None:
    """The ``[%time ...]``, ``[%emt ...]``, ``[%clk ...]`` and ``[%grade ...]`` commands
    of a move's comment; other comments are ignored."""
    for command in _COMMAND.findall(comment):
        match = _TIME_COMMENT.match(command)
        if match:
            move.time = match.group(1)
            continue
        grade = _GRADE_COMMENT.match(command)
        if grade:
            move.grade = grade.group(1)
            move.grade_words = grade.group(2) or None
            continue
        if command.startswith("[%grade"):
            raise RecordError(
                "bad grade comment %r (write e.g. [%%grade mistake 1.20 pieces worse])" % command, move.line
            )
        clock = _CLOCK_COMMENT.match(command)
        if clock is None:
            if command.startswith(("[%emt", "[%clk")):
                raise RecordError("bad clock comment %r (write h:mm:ss.s, e.g. [%%clk 0:04:53.2])" % command, move.line)
            continue
        if clock.group(1) == "emt":
            move.elapsed_ms = _clock_ms(clock)
        else:
            move.clock_ms = _clock_ms(clock)


def _build_pgn(item: _PgnRecord) -> GameRecord:
    if item.error is not None:
        raise item.error
    if "Ruleset" not in item.tags:
        raise RecordError('record has no [Ruleset "..."] tag (e.g. [Ruleset "mosona"])', item.line)
    record = GameRecord(ruleset=item.tags["Ruleset"][0], line=item.line)
    date: str | None = None
    for name, (value, line) in item.tags.items():
        if name in _FIELD_TAGS:
            setattr(record, _FIELD_TAGS[name], value)
            record.lines[_FIELD_TAGS[name]] = line
        elif name in _SIDE_TAGS:
            record.players[_SIDE_TAGS[name]] = value
            record.lines["player:" + _SIDE_TAGS[name]] = line
        elif name == "Help":
            record.help = parse_help(value, line)
            record.lines["help"] = line
        elif name == "HintLimit":
            if not value.isdigit():
                raise RecordError("HintLimit %r: a number of hints per game, 0 or more" % value, line)
            record.hint_limit = int(value)
            record.lines["hint_limit"] = line
        elif name == "Date":
            if "?" in value:  # a partly known date is no start time: kept as a tag
                record.tags[name] = value
            else:
                date = value.replace(".", "-")
                record.lines.setdefault("started", line)
        else:
            record.tags[name] = value
    if record.started is None and date is not None:
        record.started = date
    elif record.started is not None and date is not None and record.started[:10] != date:
        raise RecordError(
            "Date %r does not agree with Start %r" % (item.tags["Date"][0], record.started), item.tags["Date"][1]
        )
    marker: tuple[str, int] | None = None
    for token, line in item.tokens:
        if marker is not None:
            raise RecordError("%r after the result %r that ends the game" % (token, marker[0]), line)
        if token.startswith("{"):
            if record.moves:
                _read_commands(record.moves[-1], token[1:-1])
            continue
        if token in ("south", "north", "south+east", "north+west", "draw", UNFINISHED):
            marker = (token, line)
            continue
        token = _MOVE_NUMBER.sub("", token)
        if token:
            record.moves.append(MoveEntry(token, line=line))
    if marker is not None:
        if "Result" in item.tags and item.tags["Result"][0] != marker[0]:
            raise RecordError(
                "the moves end with result %r but [Result %r] (line %d)"
                % (marker[0], item.tags["Result"][0], item.tags["Result"][1]),
                marker[1],
            )
        record.result = marker[0]
        record.lines.setdefault("result", marker[1])
    return record


# -- JSON ------------------------------------------------------------------------
_MOVE_FIELDS = ("text", "side", "time", "elapsed_ms", "clock_ms", "grade", "grade_words")
# The record's text fields, in the order written; the last two (version 2) only when set.
_JSON_TEXT_FIELDS = (
    "started",
    "ended",
    "result",
    "termination",
    "score",
    "board",
    "layout",
    "board_game_id",
    "position",
    "time_control",
)
# Every field a game object may have: the text fields, players, tags and moves.
_JSON_FIELDS = (
    ("ruleset", "players") + _JSON_TEXT_FIELDS[:8] + ("tags", "moves") + _JSON_TEXT_FIELDS[8:] + ("help", "hint_limit")
)


def record_to_json(record: GameRecord) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if record.id is not None:
        data["id"] = record.id
    data["ruleset"] = record.ruleset
    data["players"] = {side: record.players[side] for side in SIDES if side in record.players}
    for name in _JSON_TEXT_FIELDS[:8]:
        data[name] = getattr(record, name)
    data["tags"] = dict(sorted(record.tags.items()))
    if record.position is not None:
        data["position"] = record.position
    if record.time_control is not None:
        data["time_control"] = record.time_control
    if record.help:
        data["help"] = {side: record.help[side] for side in SIDES if side in record.help}
    if record.hint_limit is not None:
        data["hint_limit"] = record.hint_limit
    moves: list[dict[str, Any]] = []
    for m in record.moves:
        move: dict[str, Any] = {"text": m.text, "side": m.side, "time": m.time}
        if m.elapsed_ms is not None:
            move["elapsed_ms"] = m.elapsed_ms
        if m.clock_ms is not None:
            move["clock_ms"] = m.clock_ms
        if m.grade is not None:
            move["grade"] = m.grade
            move["grade_words"] = m.grade_words
        moves.append(move)
    data["moves"] = moves
    return data


def write_json(records: Sequence[GameRecord]) -> str:
    document = {
        "format": JSON_FORMAT_NAME,
        "version": JSON_VERSION,
        "games": [record_to_json(record) for record in records],
    }
    text = json.dumps(document, indent=2, ensure_ascii=False)
    # One move per line: JSON strings cannot hold a raw newline, so this only joins
    # the lines of the move objects.
    return _MOVE_OBJECT.sub(_one_line_move, text) + "\n"


def _one_line_move(match: re.Match[str]) -> str:
    parts = [match.group(1), match.group(2), match.group(3)]
    parts += [extra.strip().rstrip(",") for extra in match.group(4).split("\n") if extra.strip()]
    return "{" + ", ".join(parts) + "}"


_MOVE_OBJECT = re.compile(
    r'\{\n\s+("text": [^\n]*),\n\s+("side": [^\n]*),\n\s+("time": [^\n]*?),?'
    r'((?:\n\s+"(?:elapsed_ms|clock_ms|grade|grade_words)": [^\n]*)*)\n\s+\}'
)


_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"\s*")


def _skip(text: str, pos: int) -> int:
    match = _SPACE.match(text, pos)
    assert match is not None
    return match.end()


def _array_items(text: str, pos: int) -> list[int]:
    """Start offsets of the items of the (valid) JSON array starting at ``pos``."""
    out: list[int] = []
    pos = _skip(text, pos + 1)
    if text[pos] == "]":
        return out
    while True:
        out.append(pos)
        _, pos = _DECODER.raw_decode(text, pos)
        pos = _skip(text, pos)
        if text[pos] != ",":
            return out
        pos = _skip(text, pos + 1)


def _object_members(text: str, pos: int) -> dict[str, int]:
    """Start offsets of the values of the (valid) JSON object starting at ``pos``."""
    out: dict[str, int] = {}
    pos = _skip(text, pos + 1)
    if text[pos] == "}":
        return out
    while True:
        key, pos = _DECODER.raw_decode(text, pos)
        pos = _skip(text, _skip(text, pos) + 1)  # the colon
        out[str(key)] = pos
        _, pos = _DECODER.raw_decode(text, pos)
        pos = _skip(text, pos)
        if text[pos] != ",":
            return out
        pos = _skip(text, pos + 1)


def _line_at(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def read_json(text: str) -> tuple[list[GameRecord], list[RecordError]]:
    """Records from a JSON document: ``{"format": "zuniboard-games", "games": [...]}``,
    a bare list of games, or one game object."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        return [], [RecordError("not valid JSON: %s (column %d)" % (exc.msg, exc.colno), exc.lineno)]
    start = _skip(text, 0)
    if isinstance(document, dict) and "games" in document:
        version = document.get("version", 1)
        if version not in JSON_VERSIONS_READ:
            return [], [
                RecordError(
                    "JSON records of version %r; this zuni reads versions %s (a newer zuni wrote them: upgrade zuni)"
                    % (version, ", ".join(str(v) for v in JSON_VERSIONS_READ))
                )
            ]
        members = _object_members(text, start)
        games = document["games"]
        if not isinstance(games, list):
            return [], [RecordError('"games" must be a list of game objects', _line_at(text, members["games"]))]
        offsets = _array_items(text, members["games"])
    elif isinstance(document, list):
        games = document
        offsets = _array_items(text, start)
    else:
        games = [document]
        offsets = [start]
    records: list[GameRecord] = []
    errors: list[RecordError] = []
    for number, (data, pos) in enumerate(zip(games, offsets, strict=True), 1):
        try:
            records.append(_json_record(data, text, pos, number))
        except RecordError as exc:
            errors.append(exc)
    return records, errors


def _json_record(data: object, text: str, pos: int, number: int) -> GameRecord:
    line = _line_at(text, pos)
    if not isinstance(data, dict):
        raise RecordError("game %d is not a JSON object" % number, line)
    members = _object_members(text, pos)
    lines = {name: _line_at(text, offset) for name, offset in members.items()}
    for key in data:
        if key not in _JSON_FIELDS and key != "id":
            raise RecordError(
                "game %d: unknown field %r (allowed: %s)" % (number, key, ", ".join(_JSON_FIELDS)), lines[key]
            )
    if not isinstance(data.get("ruleset"), str):
        raise RecordError('game %d: "ruleset" must be text, e.g. "mosona"' % number, lines.get("ruleset", line))
    record = GameRecord(ruleset=data["ruleset"], line=line, lines=lines)
    for name in _JSON_TEXT_FIELDS:
        value = data.get(name)
        if value is None:
            continue
        if not isinstance(value, str):
            raise RecordError("game %d: %r must be text or null, not %r" % (number, name, value), lines[name])
        setattr(record, name, value)
    for name in ("players", "tags", "help"):
        value = data.get(name, {})
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise RecordError("game %d: %r must map names to text" % (number, name), lines.get(name, line))
        getattr(record, name).update(value)
    for side in record.players:
        record.lines["player:" + side] = lines["players"]
    limit = data.get("hint_limit")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool)):
        raise RecordError('game %d: "hint_limit" must be a whole number or null' % number, lines["hint_limit"])
    record.hint_limit = limit
    moves = data.get("moves", [])
    if not isinstance(moves, list):
        raise RecordError('game %d: "moves" must be a list' % number, lines.get("moves", line))
    move_offsets = _array_items(text, members["moves"]) if "moves" in members else []
    for index, (move, offset) in enumerate(zip(moves, move_offsets, strict=True), 1):
        move_line = _line_at(text, offset)
        record.moves.append(_json_move(move, number, index, move_line))
    return record


def _json_move(move: object, number: int, index: int, move_line: int) -> MoveEntry:
    """Move ``index`` of JSON game ``number``: its text, or an object with its text and details."""
    if isinstance(move, str):
        return MoveEntry(move, line=move_line)
    if not isinstance(move, dict) or not isinstance(move.get("text"), str):
        raise RecordError(
            'game %d move %d: write "s3xm4-m5" or {"text": "s3xm4-m5", "time": ...}' % (number, index), move_line
        )
    unknown = set(move) - set(_MOVE_FIELDS)
    if unknown:
        raise RecordError(
            "game %d move %d: unknown field %r (allowed: %s)"
            % (number, index, sorted(unknown)[0], ", ".join(_MOVE_FIELDS)),
            move_line,
        )
    side = move.get("side") or ""
    time = move.get("time")
    if not isinstance(side, str) or not (time is None or isinstance(time, str)):
        raise RecordError('game %d move %d: "side" and "time" must be text' % (number, index), move_line)
    entry = MoveEntry(move["text"], side, time, line=move_line)
    for name in ("elapsed_ms", "clock_ms"):
        value = move.get(name)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise RecordError("game %d move %d: %r must be a whole number of ms" % (number, index, name), move_line)
        setattr(entry, name, value)
    for name in ("grade", "grade_words"):
        value = move.get(name)
        if value is not None and not isinstance(value, str):
            raise RecordError("game %d move %d: %r must be text" % (number, index, name), move_line)
        setattr(entry, name, value)
    return entry
