"""A deliberately simple second move generator for the line games, written from docs/rules.md
alone, to cross-check zuni.line. It shares no code with the engine: points are names
with real coordinates, adjacency is recomputed from the coordinates every time, positions
are dicts, a chain is a recursion that copies the board at each jump, and moves are
their texts. Slow on purpose; correct by inspection.
"""

from __future__ import annotations

Point = tuple[float, float]


def parse_options(text: str) -> dict[str, str]:
    """Options of a line-game ruleset with docs/rules.md's defaults filled in."""
    words = text.split()
    game = words[0]
    options = {"chain": "forced", "capture": "forced", "first": "south", "quiet": "40", "stall": "more"}
    if game == "mosona":
        options.update(board="lined", jumps="beyond")
    else:
        options.update(size="long", jumps="straight", chain="optional")
    options["game"] = game
    for word in words[1:]:
        name, value = word.split("=")
        assert name in options, name
        options[name] = value
    return options


def board_points(options: dict[str, str]) -> dict[str, Point]:
    """Name -> (x, y): m(i) at (i, 0), n(i) at (i + 0.5, 1), s(i) at (i + 0.5, -1)."""
    k = 16 if options["game"] == "kolowis" and options["size"] == "long" else 8
    points: dict[str, Point] = {}
    for i in range(1, k + 2):
        points["m%d" % i] = (float(i), 0.0)
    for i in range(1, k + 1):
        points["n%d" % i] = (i + 0.5, 1.0)
        points["s%d" % i] = (i + 0.5, -1.0)
    return points


def lined(options: dict[str, str]) -> bool:
    return options["game"] == "kolowis" or options["board"] == "lined"


def adjacent(p: Point, q: Point, is_lined: bool) -> bool:
    """An edge of docs/rules.md: middle line, diagonals, outer lines when lined."""
    (x1, y1), (x2, y2) = p, q
    if y1 == y2 == 0:
        return abs(x1 - x2) == 1
    if y1 == y2:
        return is_lined and abs(x1 - x2) == 1
    return abs(y1 - y2) == 1 and abs(x1 - x2) == 0.5


def start(options: dict[str, str]) -> tuple[dict[str, str], str]:
    """(board as name -> "south"/"north", side to move)."""
    points = board_points(options)
    k = sum(1 for name in points if name[0] == "n")
    board: dict[str, str] = {}
    for i in range(1, k + 1):
        board["s%d" % i] = "south"
        board["n%d" % i] = "north"
    for i in range(1, k // 2 + 1):
        board["m%d" % i] = "north"
    for i in range(k // 2 + 2, k + 2):
        board["m%d" % i] = "south"
    return board, options["first"]


def other(side: str) -> str:
    return "north" if side == "south" else "south"


def jump_allowed(a: Point, b: Point, c: Point, rule: str) -> bool:
    u = (b[0] - a[0], b[1] - a[1])
    v = (c[0] - b[0], c[1] - b[1])
    if rule == "straight":
        return u == v
    if rule == "beyond":
        return u[0] * v[0] + u[1] * v[1] > 0
    return True


class RefGame:
    """Position, side to move and quiet counter; moves are (text, captures) pairs."""

    def __init__(self, ruleset: str, board: dict[str, str] | None = None, turn: str | None = None, quiet: int = 0):
        self.options = parse_options(ruleset)
        self.points = board_points(self.options)
        self.lined = lined(self.options)
        if board is None:
            board, first = start(self.options)
            turn = turn or first
        self.board = dict(board)
        self.turn = turn or "south"
        self.quiet = quiet

    def neighbours(self, name: str) -> list[str]:
        # Remembered per point (the board never changes shape); computed from coordinates.
        memo: dict[str, list[str]] = self.__dict__.setdefault("_memo", {})
        if name not in memo:
            memo[name] = [
                q for q, xy in self.points.items() if q != name and adjacent(self.points[name], xy, self.lined)
            ]
        return memo[name]

    def chains(self, origin: str) -> list[tuple[str, dict[str, str], int]]:
        """Every jump move of the piece on ``origin``: (text, board after, captures)."""
        me = self.turn
        mode = self.options["chain"]
        rule = self.options["jumps"]
        found: list[tuple[str, dict[str, str], int]] = []

        def finish(board: dict[str, str], at: str) -> dict[str, str]:
            after = dict(board)
            after[at] = me
            return after

        def go(at: str, board: dict[str, str], text: str, taken: int) -> None:
            more = False
            for b in self.neighbours(at):
                if board.get(b) != other(me):
                    continue
                for c in self.neighbours(b):
                    if c == at or c in board:
                        continue
                    if not jump_allowed(self.points[at], self.points[b], self.points[c], rule):
                        continue
                    more = True
                    after = dict(board)
                    del after[b]  # removed at once
                    step_text = text + "x" + b + "-" + c
                    if mode == "none":
                        found.append((step_text, finish(after, c), taken + 1))
                        continue
                    if mode == "optional":
                        found.append((step_text, finish(after, c), taken + 1))
                    go(c, after, step_text, taken + 1)
            if not more and mode == "forced" and taken:
                found.append((text, finish(board, at), taken))

        lifted = dict(self.board)
        del lifted[origin]
        go(origin, lifted, origin, 0)
        return found

    def over(self) -> tuple[str, str] | None:
        """(result, termination) in docs/rules.md's order, or None."""
        counts = {"south": 0, "north": 0}
        for side in self.board.values():
            counts[side] += 1
        for side in (self.turn, other(self.turn)):
            if counts[side] == 0:
                return other(side), "no-pieces"
        if not self.all_moves():
            return other(self.turn), "no-moves"
        if self.quiet >= int(self.options["quiet"]):
            if self.options["stall"] == "draw" or counts["south"] == counts["north"]:
                return "draw", "quiet"
            return ("south" if counts["south"] > counts["north"] else "north"), "quiet"
        return None

    def all_moves(self) -> dict[str, tuple[dict[str, str], int]]:
        """Text -> (board after, captures), ignoring whether the game is over."""
        jumps: dict[str, tuple[dict[str, str], int]] = {}
        steps: dict[str, tuple[dict[str, str], int]] = {}
        for name, side in self.board.items():
            if side != self.turn:
                continue
            for text, after, taken in self.chains(name):
                assert text not in jumps, text
                jumps[text] = (after, taken)
            for c in self.neighbours(name):
                if c not in self.board:
                    after = dict(self.board)
                    del after[name]
                    after[c] = side
                    steps[name + "-" + c] = (after, 0)
        if jumps and self.options["capture"] == "forced":
            return jumps
        return {**jumps, **steps}

    def legal(self) -> dict[str, tuple[dict[str, str], int]]:
        counts = {"south": 0, "north": 0}
        for side in self.board.values():
            counts[side] += 1
        if not counts["south"] or not counts["north"] or self.quiet >= int(self.options["quiet"]):
            return {}
        return self.all_moves()

    def play(self, text: str) -> RefGame:
        after, taken = self.legal()[text]
        child = RefGame.__new__(RefGame)
        child.options = self.options
        child.points = self.points
        child.lined = self.lined
        child.__dict__["_memo"] = self.__dict__.get("_memo", {})
        child.board = after
        child.turn = other(self.turn)
        child.quiet = 0 if taken else self.quiet + 1
        return child


def perft(game: RefGame, depth: int) -> int:
    if depth == 0:
        return 1
    moves = game.legal()
    if depth == 1:
        return len(moves)
    return sum(perft(game.play(text), depth - 1) for text in moves)
