"""A deliberately simple second move generator for Awithlaknakwe, written from RULES.md
alone, to cross-check the engine (zuni.awith) in tests/unit/test_rules_awith_props.py.

No tables, no undo, no speed: squares are (c, r) pairs, the board is a dict, a move
returns a new position. Nothing here is shared with the engine except the ruleset
parser and the piece letters of ``AwithGame.from_position``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

from zuni.ruleset import parse_ruleset

SIDES = ("south", "west", "north", "east")
LETTER = {"south": "s", "west": "w", "north": "n", "east": "e"}
TEAM = {"south": 0, "east": 0, "north": 1, "west": 1}
PARTNER = {"south": "east", "east": "south", "north": "west", "west": "north"}
FORWARD = {"south": (0, 1), "north": (0, -1), "west": (1, 0), "east": (-1, 0)}
DIAGONALS = ((1, 1), (1, -1), (-1, 1), (-1, -1))
ORTHOGONALS = ((1, 0), (-1, 0), (0, 1), (0, -1))

Square = tuple[int, int]
Piece = tuple[str, str]  # (side, "warrior" | "priest")


def on_board(c: int, r: int) -> bool:
    main = 0 <= c <= 11 and 0 <= r <= 11
    south_north = r in (-1, 12) and 3 <= c <= 8
    west_east = c in (-1, 12) and 3 <= r <= 8
    return main or south_north or west_east


def name(sq: Square) -> str:
    c, r = sq
    return "abcdefghijklmn"[c + 1] + str(r + 2)


def home(side: str) -> list[Square]:
    if side == "south":
        return [(c, -1) for c in range(3, 9)]
    if side == "north":
        return [(c, 12) for c in range(3, 9)]
    if side == "west":
        return [(-1, r) for r in range(3, 9)]
    return [(12, r) for r in range(3, 9)]


OPPOSITE = {"south": "north", "north": "south", "west": "east", "east": "west"}


@lru_cache(maxsize=64)
def _options(ruleset: str) -> dict[str, str]:
    options: dict[str, str] = parse_ruleset(ruleset).options
    return options


@dataclass(frozen=True)
class RefMove:
    text: str
    captures: frozenset[str]


@dataclass
class RefGame:
    ruleset: str
    board: dict[Square, Piece]
    turn: str  # a side; with teams=combined "south" or "north" stands for the team
    priests: dict[str, str]  # side -> "none" | "hand" | "board" | "gone"
    quiet: int = 0
    taken: list[int] = field(default_factory=lambda: [0, 0])

    # -- set-up ---------------------------------------------------------------
    @classmethod
    def start(cls, ruleset: str) -> RefGame:
        rs = parse_ruleset(ruleset)
        game = cls(ruleset, {}, "south", {})
        for side in game.sides():
            for sq in home(side):
                game.board[sq] = (side, "warrior")
            game.priests[side] = "none"
        if game.separate4():
            game.turn = SIDES["swne".index(rs["order"][0])]
        elif rs["first"] == "north":
            game.turn = "north"
        return game

    @classmethod
    def from_engine(cls, ruleset: str, pieces: dict[str, str], turn: str, priests: dict[str, str]) -> RefGame:
        """From ``AwithGame.position()`` (plus quiet/taken set by the caller)."""
        game = cls(ruleset, {}, turn, {})
        by_name = {name((c, r)): (c, r) for c in range(-1, 13) for r in range(-1, 13) if on_board(c, r)}
        for sq_name, letter in pieces.items():
            side = SIDES["swne".index(letter.lower())]
            game.board[by_name[sq_name]] = (side, "priest" if letter.isupper() else "warrior")
            if letter.isupper():
                game.priests[side] = "board"
        for side in game.sides():
            game.priests.setdefault(side, priests.get(side, "none"))
        return game

    # -- options --------------------------------------------------------------
    def option(self, key: str) -> str:
        return _options(self.ruleset)[key]

    def four(self) -> bool:
        return self.option("players") == "4"

    def combined(self) -> bool:
        return self.four() and self.option("teams") == "combined"

    def separate4(self) -> bool:
        return self.four() and self.option("teams") == "separate"

    def sides(self) -> list[str]:
        return ["south", "west", "north", "east"] if self.four() else ["south", "north"]

    def order(self) -> list[str]:
        if not self.four():
            return ["south", "north"]
        return [SIDES["swne".index(ch)] for ch in self.option("order")]

    def shared_priest(self) -> bool:
        return self.combined() or (self.four() and self.option("priests") == "team")

    def movers(self) -> list[str]:
        if self.combined():
            return [s for s in self.sides() if TEAM[s] == TEAM[self.turn]]
        return [self.turn]

    def next_turn(self) -> str:
        if not self.separate4():
            return "north" if self.turn == "south" else "south"
        order = self.order()
        return order[(order.index(self.turn) + 1) % 4]

    # -- moves ----------------------------------------------------------------
    def steps_of(self, side: str) -> list[tuple[Square, Square]]:
        fx, fy = FORWARD[side]
        px, py = fy, fx  # a sideways direction: perpendicular to forward
        out = []
        for sq, (owner, kind) in sorted(self.board.items()):
            if owner != side:
                continue
            if kind == "warrior":
                dirs = [(fx + px, fy + py), (fx - px, fy - py)]
            else:
                dirs = [(fx, fy), (px, py), (-px, -py), (fx + px, fy + py), (fx - px, fy - py)]
            for dx, dy in dirs:
                to = (sq[0] + dx, sq[1] + dy)
                if on_board(*to) and to not in self.board:
                    out.append((sq, to))
        return out

    def drops_of(self, side: str) -> list[Square]:
        if self.priests.get(side) != "hand":
            return []
        return [sq for sq in home(side) if sq not in self.board]

    def custody(self, board: dict[Square, Piece], at: Square, side: str) -> list[Square]:
        dirs = list(DIAGONALS)
        if self.option("custody") == "all":
            dirs += ORTHOGONALS
        taken = []
        for dx, dy in dirs:
            enemy_sq = (at[0] + dx, at[1] + dy)
            friend_sq = (at[0] + 2 * dx, at[1] + 2 * dy)
            enemy = board.get(enemy_sq)
            friend = board.get(friend_sq)
            if enemy and friend and TEAM[enemy[0]] != TEAM[side] and TEAM[friend[0]] == TEAM[side]:
                taken.append(enemy_sq)
        return taken

    def own_moves(self) -> list[tuple[str, Square | None, Square, str]]:
        """(text, origin or None for a drop, destination, side) for the side(s) to move."""
        out: list[tuple[str, Square | None, Square, str]] = []
        for side in self.movers():
            for a, b in self.steps_of(side):
                out.append((name(a) + "-" + name(b), a, b, side))
            for sq in self.drops_of(side):
                out.append(("@" + name(sq), None, sq, side))
        return out

    def anyone_can_move(self) -> bool:
        return any(self.steps_of(s) or self.drops_of(s) for s in self.sides())

    def over(self) -> bool:
        return self.quiet >= int(self.option("quiet")) or not self.anyone_can_move()

    def moves(self) -> list[RefMove]:
        if self.over():
            return []
        own = self.own_moves()
        if not own:
            return [RefMove("pass", frozenset())]
        out = []
        for text, origin, dest, side in own:
            board = dict(self.board)
            piece = board.pop(origin) if origin is not None else (side, "priest")
            board[dest] = piece
            out.append(RefMove(text, frozenset(name(sq) for sq in self.custody(board, dest, side))))
        return out

    def play(self, text: str) -> RefGame:
        nxt = replace(self, board=dict(self.board), priests=dict(self.priests), taken=list(self.taken))
        quiet = True
        if text != "pass":
            match = [m for m in self.own_moves() if m[0] == text]
            assert len(match) == 1, (text, self.own_moves())
            _, origin, dest, side = match[0]
            if origin is None:
                nxt.board[dest] = (side, "priest")
                nxt.priests[side] = "board"
                quiet = False
            else:
                piece = nxt.board.pop(origin)
                nxt.board[dest] = piece
                if piece[1] == "warrior":
                    quiet = False
            captured = self.custody(nxt.board, dest, side)
            lost_warrior = set()
            for sq in captured:
                victim, kind = nxt.board.pop(sq)
                if kind == "priest":
                    nxt.priests[victim] = "gone"
                else:
                    lost_warrior.add(victim)
            # Priests earned by a first warrior loss, in `order` for a tie.
            for victim in self.order():
                if victim not in lost_warrior or nxt.priests[victim] != "none":
                    continue
                if self.shared_priest() and nxt.priests[PARTNER[victim]] != "none":
                    continue
                nxt.priests[victim] = "hand"
            if captured:
                quiet = False
                nxt.taken[TEAM[side]] += len(captured)
        nxt.quiet = self.quiet + 1 if quiet else 0
        nxt.turn = self.next_turn()
        return nxt

    def scores(self) -> tuple[int, int]:
        scores = list(self.taken)
        if self.option("scoring") == "captures+arrivals":
            for sq, (side, _kind) in self.board.items():
                if sq in home(OPPOSITE[side]):
                    scores[TEAM[side]] += 1
        return scores[0], scores[1]


def perft(game: RefGame, depth: int) -> int:
    if depth == 0:
        return 1
    moves = game.moves()
    if depth == 1:
        return len(moves)
    return sum(perft(game.play(m.text), depth - 1) for m in moves)
