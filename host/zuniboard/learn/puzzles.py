"""Puzzles made, not hand-picked: from the endgame tables, the Mosona proof and a search.

Three kinds, each with its proof (``prove``):

- **table** ("win in N", Mosona on both boards, Kolowis short and long): a position the
  side to move wins in N moves (both sides' moves, the last one included), with exactly
  one winning move at every step of the player's line; the defence is the table's best
  (the reply that loses slowest; the first such in move order). Made by ``table_puzzles``
  from random positions a table covers; proved by walking the line with the table.
- **book** ("find North's only winning reply", Mosona): a position of the proof that
  North wins Mosona (``ai/book.py``), North to move: the book's move wins (the proof, and
  the proof-number search again, ``ai/solver.prove``), and every other move is refuted by
  the search (North no longer wins by force), each settled with the endgame tables as
  leaves within ``BOOK_NODES``. A position where another move wins too, or where the
  search leaves a move unsettled, is no puzzle: the builder rejects it.
- **custody** (Awithlaknakwe): a move that wins a warrior by force: whatever the
  opponent replies, a custody capture follows, and the opponent wins nothing back within
  the same three moves; no other move does as much, and no capture is there at once.
  Made and proved by an exhaustive search of three moves (``custody_value``).

Each puzzle has its ``grade`` (1-5): from N (the moves to the end, or 3 for a custody
tactic) and ``tempting``, how many wrong moves look as good as the right one (they capture
as much); and why each wrong first move fails (``wrong``: "after m6-n5 the game is drawn
with best play: the quiet count runs out with equal pieces"). A puzzle is shown as a
lesson step (``as_step``): the same controller sets it up, checks the moves and plays the
defence.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zuni
from zuni.line import LineGame
from zuni.position import parse_position, position_text
from zuniboard.ai import tablebase as tbm
from zuniboard.ai.tablebase import Tablebase
from zuniboard.learn.lessons import Course, Step

PUZZLE_DIR = Path(__file__).resolve().parent / "puzzles"
BOOK_NODES = 3000  # the search's budget to refute one wrong reply of a book puzzle
KINDS = ("table", "book", "custody")


class PuzzleError(ValueError):
    """A puzzle that does not hold (the message names the puzzle and the step)."""


@dataclass(frozen=True)
class Puzzle:
    id: str
    kind: str
    position: str  # the one-line position text (docs/rules.md)
    line: tuple[tuple[str, ...], ...]  # the player's moves (any of a tuple) and the defence (one each)
    n: int  # moves to the end of the game (table), 1 (book), 3 (custody)
    tempting: int
    wrong: dict[str, str] = field(default_factory=dict)  # "k:move" -> why it fails

    @property
    def ruleset(self) -> str:
        return self.position.split("|", 1)[0].strip()

    @property
    def grade(self) -> int:
        return grade(self.n, self.tempting)

    def side(self) -> str:
        return str(zuni.SIDE_NAMES[parse_position(self.position).turn])

    def task(self) -> str:
        who = self.side().capitalize()
        if self.kind == "table":
            return "%s to move wins in %d (%d of them %s's): find the winning move each time" % (
                who,
                self.n,
                (self.n + 1) // 2,
                who,
            )
        if self.kind == "book":
            return "North to move: find North's only winning reply (from the proof that North wins Mosona)"
        return "%s to move wins a warrior by force: whatever the reply, a capture follows" % who

    def to_data(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "position": self.position,
            "line": [list(e) for e in self.line],
            "n": self.n,
            "tempting": self.tempting,
            "grade": self.grade,
            "wrong": self.wrong,
        }


def from_data(data: dict[str, Any]) -> Puzzle:
    try:
        return Puzzle(
            id=str(data["id"]),
            kind=str(data["kind"]),
            position=str(data["position"]),
            line=tuple(tuple(str(m) for m in e) for e in data["line"]),
            n=int(data["n"]),
            tempting=int(data["tempting"]),
            wrong={str(k): str(v) for k, v in dict(data.get("wrong", {})).items()},
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise PuzzleError("puzzle %r: %s" % (data.get("id", "?") if isinstance(data, dict) else data, exc))


def load_puzzles(game: str, path: Path | None = None) -> list[Puzzle]:
    """The shipped puzzles of ``game`` (``puzzles/<game>.json``, tools/make_puzzles.py)."""
    path = path or PUZZLE_DIR / ("%s.json" % game)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise PuzzleError("%s: %s" % (path, exc))
    if not isinstance(data, dict) or not isinstance(data.get("puzzles"), list):
        raise PuzzleError("%s: expected {'game': ..., 'puzzles': [...]}" % path)
    out = [from_data(p) for p in data["puzzles"]]
    for p in out:
        if p.kind not in KINDS:
            raise PuzzleError("%s: puzzle %s: unknown kind %r" % (path, p.id, p.kind))
        try:
            parse_position(p.position)
        except (zuni.ZuniError, ValueError) as exc:
            raise PuzzleError("%s: puzzle %s: %s" % (path, p.id, exc))
    return out


def grade(n: int, tempting: int) -> int:
    """1 (easy) .. 5: longer lines and more tempting wrong moves are harder
    (n + 2 * tempting: up to 3, 7, 11, 17, more)."""
    score = n + 2 * tempting
    for g, top in enumerate((3, 7, 11, 17), 1):
        if score <= top:
            return g
    return 5


def as_step(p: Puzzle, number: int) -> Step:
    """The puzzle as a lesson step: the defence's moves are the lesson's replies."""
    line: list[tuple[str, ...]] = []
    for i, entry in enumerate(p.line):
        line.append(entry if i % 2 == 0 else (">" + entry[0],))
    return Step(
        id=p.id,
        title="Puzzle %d (%s, grade %d)" % (number, p.kind, p.grade),
        rules=("puzzle",),
        position=p.position,
        say=p.task() + ".",
        task=p.task(),
        line=tuple(line),
        wrong=dict(p.wrong),
        why="that move does not win",
        done="solved.",
    )


def as_course(puzzles: list[Puzzle], game: str) -> Course:
    return Course(
        game,
        "Puzzles: %s" % game,
        ("Set up each position as the board lights it, then find the move; the board plays the defence.",),
        tuple(as_step(p, i + 1) for i, p in enumerate(puzzles)),
        "All puzzles of this set done.",
    )


# -- table puzzles ----------------------------------------------------------------------


def _fail_words(game: Any, move: Any, value: int, stall_draw: bool) -> str:
    """Why ``move`` (its table value ``value`` for the mover) does not win."""
    result, moves = tbm.decode(value)
    text = move.text()
    if result == "draw":
        if stall_draw:
            return "after %s the game is drawn with best play: the quiet count runs out" % text
        return "after %s the game is drawn with best play: the quiet count runs out with equal pieces" % text
    other = (
        str(zuni.SIDE_NAMES[1 - game.turn]).capitalize()
        if game.ruleset.game_id != "awithlaknakwe"
        else "the other side"
    )
    return "after %s %s wins in %d with best play" % (text, other, moves)


def solve_line(game: LineGame, tb: Tablebase) -> tuple[list[tuple[str, ...]], int, dict[str, str]] | None:
    """The puzzle line from ``game`` (the side to move wins): the unique winning move at
    each of the player's turns, the table's best defence between; the tempting wrong moves
    counted; why each wrong move fails. None when a player's turn has two winning moves."""
    work = game.copy()
    stall_draw = work.ruleset["stall"] == "draw"
    line: list[tuple[str, ...]] = []
    tempting = 0
    wrong: dict[str, str] = {}
    player = work.turn
    while not work.is_game_over():
        scored = tbm.move_values(work, tb)
        if work.turn == player:
            winning = [(m, v) for m, v in scored if v > 0]
            if len(winning) != 1:
                return None
            right = winning[0][0]
            for m, v in scored:
                if m is right:
                    continue
                if m.captures or v == 0:
                    tempting += 1  # it takes a piece, or at least does not lose: it looks good
                wrong["%d:%s" % (len(line), m.text())] = _fail_words(work, m, v, stall_draw)
            line.append((right.text(),))
            work.push(right)
        else:
            best = scored[0][0]  # the slowest loss (move_values sorts best first; ties keep move order)
            line.append((best.text(),))
            work.push(best)
    outcome = work.outcome()
    if outcome is None or outcome.winner != work.team_of(player):
        return None
    return line, tempting, wrong


def _random_position(ruleset: str, tb: Tablebase, rng: random.Random) -> LineGame | None:
    balances = sorted(k for k in tb.tables if k[0] >= 1 and k[1] >= 1)
    s, n = rng.choice(balances)
    names = LineGame(ruleset).geometry.names
    points = rng.sample([str(x) for x in names], s + n)
    turn = rng.choice(("south", "north"))
    # Half of them with the quiet count running: a win that must come before it runs out.
    quiet = 0 if rng.random() < 0.5 else rng.randint(tb.quiet // 2, tb.quiet - 1)
    try:
        game = LineGame.from_position(
            ruleset, "south %s north %s" % (" ".join(points[:s]), " ".join(points[s:])), turn, quiet
        )
    except zuni.ZuniError:
        return None
    if game.is_game_over():
        return None
    back = parse_position(position_text(game))  # as its text reads back: the same move order
    return back if isinstance(back, LineGame) else None


def table_puzzles(
    ruleset: str, tb: Tablebase, count: int, *, seed: int = 1, min_n: int = 3, max_n: int = 15, tries: int = 20000
) -> list[Puzzle]:
    """Up to ``count`` "win in N" puzzles of ``ruleset`` (N from ``min_n`` to ``max_n``),
    spread over N, from random positions of ``tb``'s tables."""
    rng = random.Random(seed)
    by_n: dict[int, list[Puzzle]] = {}
    seen: set[str] = set()
    canonical = str(zuni.parse_ruleset(ruleset))
    for _ in range(tries):
        game = _random_position(canonical, tb, rng)
        if game is None:
            continue
        value = tb.value(game)
        if value is None or value <= 0:
            continue
        _, n = tbm.decode(value)
        if not min_n <= n <= max_n or len(by_n.get(n, [])) >= max(2, count // 4):
            continue
        text = position_text(game)
        if text in seen:
            continue
        seen.add(text)
        solved = solve_line(game, tb)
        if solved is None:
            continue
        line, tempting, wrong = solved
        pid = "%s-%d-%d" % (canonical.replace(" ", "_").replace("=", "-"), n, len(seen))
        by_n.setdefault(n, []).append(Puzzle(pid, "table", text, tuple(line), n, tempting, wrong))
        if sum(len(v) for v in by_n.values()) >= count:
            break
    out = [p for n in sorted(by_n) for p in by_n[n]]
    return sorted(out[:count], key=lambda p: (p.grade, p.n, p.id))


def prove_table(p: Puzzle, tb: Tablebase) -> None:
    """Raises ``PuzzleError`` unless ``p`` holds by the table: a win in ``p.n``, the
    player's move the only winning one at each turn, the defence the table's best."""
    game = parse_position(p.position)
    if not isinstance(game, LineGame):
        raise PuzzleError("%s: not a line game" % p.id)
    value = tb.value(game)
    if value is None:
        raise PuzzleError("%s: the tables do not cover the position" % p.id)
    result, n = tbm.decode(value)
    if result != "win" or n != p.n:
        raise PuzzleError("%s: the table says %s %d, the puzzle win in %d" % (p.id, result, n, p.n))
    solved = solve_line(game, tb)
    if solved is None:
        raise PuzzleError("%s: a turn of the player's has more than one winning move" % p.id)
    line, tempting, wrong = solved
    if tuple(line) != p.line:
        raise PuzzleError("%s: the line is %s, the table's %s" % (p.id, p.line, line))
    if tempting != p.tempting or wrong != p.wrong:
        raise PuzzleError("%s: its tempting moves or explanations differ from the table's" % p.id)


# -- book puzzles (Mosona's proof) ----------------------------------------------------------


def book_game(key: str) -> LineGame:
    """The position of a book key (``ai.book.position_key``)."""
    south, north, turn, quiet = key.split(":")
    names = LineGame("mosona").geometry.names
    s, n = int(south, 16), int(north, 16)
    sp = [str(names[p]) for p in range(len(names)) if s >> p & 1]
    np_ = [str(names[p]) for p in range(len(names)) if n >> p & 1]
    return LineGame.from_position(
        "mosona", "south %s north %s" % (" ".join(sp), " ".join(np_)), "north" if turn == "1" else "south", int(quiet)
    )


def settle(game: LineGame, move: zuni.Move, tb: Tablebase | None, nodes: int = BOOK_NODES) -> bool | None:
    """Does North still win by force after its ``move``? True (proved), False (South holds
    at least a draw: disproved), None (the search did not settle it within ``nodes``)."""
    from zuniboard.ai import solver

    north = game.team_of(zuni.NORTH)  # a team (0 or 1), as outcomes and the solver name them
    work = game.copy()
    work.push(move)
    if work.is_game_over():
        outcome = work.outcome()
        return outcome is not None and outcome.winner == north
    return solver.prove(work, north, node_limit=nodes, tb=tb).result


def refuted(game: LineGame, move: zuni.Move, tb: Tablebase | None, nodes: int = BOOK_NODES) -> bool:
    """After North's ``move``, North no longer wins by force (the search disproves it)."""
    return settle(game, move, tb, nodes) is False


def book_puzzle(
    key: str, tb: Tablebase | None, nodes: int = BOOK_NODES, entries: dict[str, str] | None = None
) -> Puzzle | None:
    """The book position ``key`` as a "find North's only winning reply" puzzle (North to
    move, at least two moves), or None when it is not one: the search must prove the
    proof's move wins and refute every other move within ``nodes`` each. A position where
    another move wins too (ambiguous), or where the search leaves a move unsettled (it
    cannot say the reply is the only one), is rejected. ``entries``: the book (position key
    -> North's move; by default the proof's, ``ai.book``)."""
    from zuniboard.ai import book

    text = (book.entries() if entries is None else entries).get(key)
    if text is None:
        return None
    game = book_game(key)
    if game.turn != zuni.NORTH:
        return None
    right = next((m for m in game.legal_moves() if m.text() == text), None)
    others = [m for m in game.legal_moves() if m.text() != text]
    if right is None or not others:
        return None
    wrong: dict[str, str] = {}
    for m in others:  # the cheap refutations first would not change the answer: all are needed
        if settle(game, m, tb, nodes) is not False:
            return None  # another winning reply, or one the search cannot settle
        wrong["0:%s" % m.text()] = (
            "after %s North no longer wins by force: South holds (the proof search refutes it)" % m.text()
        )
    if settle(game, right, tb, nodes) is not True:
        return None  # the proof's move is not proved again by the search within the budget
    pid = "mosona-book-%s" % key.replace(":", "-")
    # Tempting: the other moves that capture as much as the answer (they look as good).
    tempting = sum(1 for m in others if len(m.captures) >= len(right.captures))
    return Puzzle(pid, "book", position_text(game), ((text,),), 1, tempting, wrong)


def book_puzzles(tb: Tablebase | None, count: int, *, max_pieces: int = 9, nodes: int = BOOK_NODES) -> list[Puzzle]:
    """Up to ``count`` book puzzles, one per placing of the pieces (the same board at
    another quiet count is the same puzzle to a player), easiest first."""
    from zuniboard.ai import book

    out: list[Puzzle] = []
    boards: set[str] = set()
    for key in sorted(book.entries(), key=lambda k: (k.rsplit(":", 2)[0], int(k.rsplit(":", 1)[1]))):
        board = key.rsplit(":", 2)[0]
        if board in boards:
            continue
        game = book_game(key)
        if sum(game.counts[:2]) > max_pieces or game.turn != zuni.NORTH or len(game.legal_moves()) < 2:
            continue
        p = book_puzzle(key, tb, nodes)
        if p is not None:
            boards.add(board)
            out.append(p)
            if len(out) >= count:
                break
    return sorted(out, key=lambda p: (p.grade, p.id))


def prove_book(p: Puzzle, tb: Tablebase | None, nodes: int = BOOK_NODES, entries: dict[str, str] | None = None) -> None:
    """The answer is the proof's move (``entries``: the book, by default the proof's), the
    search proves it wins, and it refutes every other move: North's only winning reply."""
    from zuniboard.ai import book

    game = parse_position(p.position)
    if not isinstance(game, LineGame) or str(game.ruleset) != "mosona" or game.turn != zuni.NORTH:
        raise PuzzleError("%s: not a Mosona position with North to move" % p.id)
    if entries is None:
        move = book.book_move(game)
    else:
        text = entries.get(book.position_key(game))
        move = next((m for m in game.legal_moves() if m.text() == text), None)
    if move is None or (move.text(),) != p.line[0] or len(p.line) != 1:
        raise PuzzleError("%s: the proof's move is %s, the puzzle's %s" % (p.id, move, p.line))
    others = {"0:%s" % m.text(): m for m in game.legal_moves() if m.text() != move.text()}
    if set(others) != set(p.wrong):
        raise PuzzleError(
            "%s: the other moves are %s, the puzzle explains %s" % (p.id, sorted(others), sorted(p.wrong))
        )
    for other in others.values():
        verdict = settle(game, other, tb, nodes)
        if verdict is not False:
            raise PuzzleError(
                "%s: %s %s: not North's only winning reply"
                % (p.id, other.text(), "wins too" if verdict else "is not refuted within %d nodes" % nodes)
            )
    if settle(game, move, tb, nodes) is not True:
        raise PuzzleError("%s: the search does not prove %s wins within %d nodes" % (p.id, move.text(), nodes))


# -- custody tactics (Awithlaknakwe) ---------------------------------------------------------


def _taken(game: Any) -> tuple[int, int]:
    """Captures so far of South's and North's teams (docs/rules.md's ``taken``)."""
    text = position_text(game)
    for part in text.split("|"):
        part = part.strip()
        if part.startswith("taken "):
            a, b = part[len("taken ") :].split()
            return int(a), int(b)
    return 0, 0


def _gain(game: Any, team: int) -> int:
    taken = _taken(game)
    return taken[team] - taken[1 - team]


def custody_value(game: Any, depth: int, team: int) -> int:
    """The captures ``team`` gains over the next ``depth`` moves with best play on both
    sides (exhaustive; the game's end stops the count)."""
    base = _gain(game, team)

    def search(d: int) -> int:
        if d == 0 or game.is_game_over():
            return _gain(game, team) - base
        values = []
        for move in game.legal_moves():
            game.push(move)
            values.append(search(d - 1))
            game.pop()
        mine = game.team_of(game.turn) == team
        return max(values) if mine else min(values)

    return search(depth)


def custody_line(game: Any) -> tuple[list[tuple[str, ...]], int, dict[str, str]] | None:
    """The tactic from ``game``: the only first move that wins a capture by force within
    three moves (none at once), the defence (the first reply that keeps the loss least),
    and every capture that then completes it. None when it is not such a puzzle."""
    team = game.team_of(game.turn)
    moves = list(game.legal_moves())
    if any(_captures_now(game, m) for m in moves):
        return None
    scored = []
    for m in moves:
        game.push(m)
        scored.append((m, custody_value(game, 2, team)))
        game.pop()
    winners = [(m, v) for m, v in scored if v >= 1]
    if len(winners) != 1:
        return None
    right, value = winners[0]
    game.push(right)
    replies = []
    for r in game.legal_moves():
        game.push(r)
        replies.append((r, custody_value(game, 1, team)))
        game.pop()
    defence = min(replies, key=lambda item: item[1])[0]
    game.push(defence)
    finish = []
    for m in game.legal_moves():
        game.push(m)
        if _gain(game, team) - _gain_before(game, team) >= value:
            finish.append(m.text())
        game.pop()
    game.pop()
    game.pop()
    if not finish:
        return None
    wrong = {
        "0:%s" % m.text(): "after %s the other side keeps every warrior: nothing is won by force" % m.text()
        for m, v in scored
        if m is not right
    }
    tempting = sum(1 for m, v in scored if m is not right and v == 0 and _threatens(game, m, team))
    return [(right.text(),), (defence.text(),), tuple(sorted(finish))], tempting, wrong


def _gain_before(game: Any, team: int) -> int:
    """The gain three moves back (the position the tactic started from)."""
    moves = []
    for _ in range(3):
        moves.append(game.move_stack[-1])
        game.pop()
    value = _gain(game, team)
    for m in reversed(moves):
        game.push(m)
    return value


def _captures_now(game: Any, move: Any) -> bool:
    team = game.team_of(game.turn)
    before = _gain(game, team)
    game.push(move)
    after = _gain(game, team)
    game.pop()
    return after > before


def _threatens(game: Any, move: Any, team: int) -> bool:
    """After ``move`` some reply still leaves the player a capture: an attack the opponent
    can parry, which looks as good as the real one (a tempting wrong move)."""
    game.push(move)
    try:
        for reply in game.legal_moves():
            game.push(reply)
            hit = any(_captures_now(game, m) for m in game.legal_moves())
            game.pop()
            if hit:
                return True
        return False
    finally:
        game.pop()


def _awith_positions(rng: random.Random, count: int) -> Iterator[Any]:
    """Random small middle-game positions: three South warriors against four North ones."""
    for _ in range(count):
        squares = ["%s%d" % (f, r) for f in "cdefghijkl" for r in range(5, 11)]
        picks = rng.sample(squares, 7)
        south, north = picks[:3], picks[3:7]
        text = "awithlaknakwe | south to move | south %s | north %s" % (" ".join(south), " ".join(north))
        try:
            game = parse_position(text)
        except (zuni.ZuniError, ValueError):
            continue
        if not game.is_game_over():
            # As its text reads back (the order of the pieces decides the order of the
            # moves, and so which of equal defences is the puzzle's).
            yield parse_position(position_text(game))


def custody_puzzles(count: int, *, seed: int = 1, tries: int = 3000) -> list[Puzzle]:
    rng = random.Random(seed)
    out: list[Puzzle] = []
    for game in _awith_positions(rng, tries):
        solved = custody_line(game)
        if solved is None:
            continue
        line, tempting, wrong = solved
        pid = "awith-custody-%d" % (len(out) + 1)
        out.append(Puzzle(pid, "custody", position_text(game), tuple(line), 3, tempting, wrong))
        if len(out) >= count:
            break
    return sorted(out, key=lambda p: (p.grade, p.id))


def prove_custody(p: Puzzle) -> None:
    game = parse_position(p.position)
    solved = custody_line(game)
    if solved is None:
        raise PuzzleError("%s: the search finds no unique winning first move" % p.id)
    line, tempting, wrong = solved
    if tuple(line) != p.line or wrong != p.wrong or tempting != p.tempting:
        raise PuzzleError("%s: the search's line is %s, the puzzle's %s" % (p.id, line, p.line))


def prove(p: Puzzle, tables: dict[str, Tablebase]) -> None:
    """Raises ``PuzzleError`` unless ``p`` holds (``tables``: by canonical ruleset)."""
    if p.kind == "table":
        tb = tables.get(p.ruleset) or tables.get(str(zuni.parse_ruleset(p.ruleset)))
        if tb is None:
            raise PuzzleError("%s: no table of %s to prove it with" % (p.id, p.ruleset))
        prove_table(p, tb)
    elif p.kind == "book":
        prove_book(p, tables.get("mosona"))
    elif p.kind == "custody":
        prove_custody(p)
    else:
        raise PuzzleError("%s: unknown kind %r (%s)" % (p.id, p.kind, ", ".join(KINDS)))
