"""The physical world of the virtual board: which disk stands on which point.

Reed switches only sense occupancy; a person at a wooden board also sees whose disk is
where, what is in their hand and what lies beside the board. The browser page shows
that, so the host keeps this model next to the firmware. Every change the firmware
can notice goes through ``lift`` and ``place``; the world never tells the firmware
anything else.

>>> world = World.for_ruleset("mosona")
>>> world.lift("s3").side
'south'
>>> world.place("m5").id == world.pieces["m5"].id
True
>>> world.lift("m4"); world.discard()       # the captured disk goes to the tray
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypedDict

import zuni
from zuniboard.games.spoken import spoken
from zuniboard.link.mirror import KIND_NAMES, disks_of, start_game

# A disk taken off by someone else and put down again within this time is the same disk
# moved (the two halves of one move); after it, it is a captured disk in the tray.
LOOSE_S = 5.0


class WorldError(ValueError):
    """An action a hand cannot do (lift from an empty point, place on a full one...)."""


class UnknownPoint(WorldError):
    """A point name this board does not have."""


class PieceJson(TypedDict):
    """A disk as the page and the API show it."""

    id: int
    side: str
    kind: str


class WorldJson(TypedDict):
    """The disks as the page draws them: on the board (point -> disk), in the hand, in the tray."""

    pieces: dict[str, PieceJson]
    hand: list[PieceJson]
    tray: list[PieceJson]


@dataclass
class Piece:
    """One physical disk. ``id`` stays with the disk so the page can follow it."""

    id: int
    side: str  # "south", "west", "north", "east", or "unknown" for a disk of no known side
    kind: str  # "man" or "priest"

    def as_json(self) -> PieceJson:
        return {"id": self.id, "side": self.side, "kind": self.kind}


def inventory(ruleset: str, position: str = "") -> tuple[dict[int, tuple[str, str]], list[tuple[str, str]]]:
    """The disks of a game: ``(start, reserve)``.

    ``start`` maps point index -> (side, kind) of the start position (``position``, a
    position text, when the game was set up from one); ``reserve`` lists the disks that
    start beside the board (Awithlaknakwe's bow priests: one per player, or one per team
    where the ruleset says the team shares one; not those already on the board)."""
    game = start_game(ruleset, position)
    start: dict[int, tuple[str, str]] = {}
    sides_in_play: list[int] = []
    for point, code in enumerate(game.board):
        if code:
            side = zuni.piece_side(code)
            start[point] = (zuni.SIDE_NAMES[side], KIND_NAMES[zuni.piece_kind(code)])
            if side not in sides_in_play:
                sides_in_play.append(side)
    reserve: list[tuple[str, str]] = []
    if game.geometry.shape == "squares":
        if getattr(game, "team_priest", False):
            # The team's one priest: beside the board on the side of its first player.
            for team in (0, 1):
                owners = sorted(s for s in sides_in_play if game.team_of(s) == team)
                if owners:
                    reserve.append((zuni.SIDE_NAMES[owners[0]], "priest"))
        else:
            for side in sorted(sides_in_play):
                reserve.append((zuni.SIDE_NAMES[side], "priest"))
        on_board = [sk for sk in start.values() if sk[1] == "priest"]
        reserve = [sk for sk in reserve if sk not in on_board]
    return start, reserve


@dataclass
class World:
    """Disks on points (by point name), in the hand (in the order lifted) and in the tray."""

    names: tuple[str, ...]
    pieces: dict[str, Piece] = field(default_factory=dict)
    hand: list[Piece] = field(default_factory=list)
    tray: list[Piece] = field(default_factory=list)
    _next_id: int = 1
    _loose: list[tuple[int, float]] = field(default_factory=list)
    # The game in words for the page (fed the board's state reports, not the disks).
    narrator: Narrator = field(default_factory=lambda: Narrator(), compare=False, repr=False)

    @classmethod
    def for_ruleset(cls, ruleset: str, on_board: bool = True) -> World:
        """The disks of ``ruleset``: at their start points (``on_board``) or all in the tray."""
        geometry = zuni.new_game(ruleset).geometry
        world = cls(tuple(geometry.names))
        start, reserve = inventory(ruleset)
        for point in sorted(start):
            side, kind = start[point]
            piece = world._new(side, kind)
            if on_board:
                world.pieces[world.names[point]] = piece
            else:
                world.tray.append(piece)
        for side, kind in reserve:
            world.tray.append(world._new(side, kind))
        return world

    def _new(self, side: str, kind: str) -> Piece:
        piece = Piece(self._next_id, side, kind)
        self._next_id += 1
        return piece

    def _point(self, name: str) -> str:
        if name not in self.names:
            raise UnknownPoint("unknown point %r (this board has %s..%s)" % (name, self.names[0], self.names[-1]))
        return name

    # -- what a hand does ----------------------------------------------------------
    def lift(self, point: str) -> Piece:
        """Take the disk on ``point`` into the hand."""
        self.can_lift(point)
        piece = self.pieces.pop(point)
        self.hand.append(piece)
        return piece

    def _from_hand(self, piece_id: int | None) -> Piece:
        if not self.hand:
            raise WorldError("the hand is empty: lift a disk first (or take one from the tray)")
        if piece_id is None:
            return self.hand[-1]
        for piece in self.hand:
            if piece.id == piece_id:
                return piece
        raise WorldError("disk %d is not in the hand (in the hand: %s)" % (piece_id, self._ids(self.hand)))

    def can_lift(self, point: str) -> None:
        """WorldError unless ``lift(point)`` would succeed."""
        self._point(point)
        if point not in self.pieces:
            raise WorldError("no disk on %s to lift" % point)

    def check_empty(self, point: str) -> None:
        """WorldError unless ``point`` is a point of this board with no disk on it."""
        self._point(point)
        if point in self.pieces:
            raise WorldError("%s is already occupied" % point)

    def can_place(self, point: str, piece_id: int | None = None) -> Piece:
        """The disk ``place`` would put down; WorldError if it cannot (changes nothing)."""
        self.check_empty(point)
        return self._from_hand(piece_id)

    def place(self, point: str, piece_id: int | None = None) -> Piece:
        """Put a disk from the hand on the empty ``point`` (the last one lifted unless
        ``piece_id`` names another)."""
        piece = self.can_place(point, piece_id)
        self.hand.remove(piece)
        self.pieces[point] = piece
        return piece

    def discard(self, piece_id: int | None = None) -> Piece:
        """Lay a disk from the hand in the tray beside the board."""
        piece = self._from_hand(piece_id)
        self.hand.remove(piece)
        self.tray.append(piece)
        return piece

    def take(self, side: str | None = None, kind: str | None = None, piece_id: int | None = None) -> Piece:
        """Pick a disk up from the tray: by ``piece_id``, or the first of ``side`` (and ``kind``)."""
        for piece in self.tray:
            if piece_id is not None:
                if piece.id != piece_id:
                    continue
            elif (side is not None and piece.side != side) or (kind is not None and piece.kind != kind):
                continue
            self.tray.remove(piece)
            self.hand.append(piece)
            return piece
        if piece_id is not None:
            what = "disk %d" % piece_id
        else:
            what = " ".join(x for x in (side, kind) if x) or "disk"
        raise WorldError("no %s in the tray (in the tray: %s)" % (what, self._ids(self.tray)))

    @staticmethod
    def _ids(pieces: Iterable[Piece]) -> str:
        return ", ".join("%d (%s %s)" % (p.id, p.side, p.kind) for p in pieces) or "nothing"

    # -- keeping in step with the sensors -----------------------------------------
    def occupied(self) -> list[str]:
        """The occupied point names, in point order (what the sensors should see)."""
        return [name for name in self.names if name in self.pieces]

    def follow(
        self,
        emptied: Iterable[str],
        filled: Iterable[str],
        hint: dict[str, tuple[str, str]] | None = None,
        homes: dict[str, str] | None = None,
        now_s: float = 0.0,
    ) -> bool:
        """Account for sensor changes that did not come through this world: another
        client of the control channel moved disks (the terminal's hand of ``zuni play
        --sim``, a test), or the virtual board restarted.

        A disk gone from a point goes to the tray; a disk appearing is the one taken
        off most recently (within ``LOOSE_S`` seconds: the other half of a move), else
        a bow priest entering its home (``homes``: point -> side), else a tray disk of
        the ``(side, kind)`` that ``hint`` gives for the point (the start position),
        else one of the same side, else any, else a new disk of unknown side. A change
        of many points at once (a setup) follows the hint first. Returns whether
        anything changed."""
        filled = list(filled)
        changed = False
        self._loose = [(pid, t) for pid, t in self._loose if now_s - t <= LOOSE_S]
        for point in emptied:
            gone = self.pieces.pop(point, None)
            if gone is not None:
                self.tray.append(gone)
                self._loose.append((gone.id, now_s))
                changed = True
        bulk = len(filled) > 2
        for point in filled:
            if point in self.pieces:
                continue
            back: Piece | None = None
            if not bulk:
                while self._loose and back is None:
                    pid, _ = self._loose.pop()
                    back = next((p for p in self.tray if p.id == pid), None)
            if back is None:
                back = self._pick(point, hint or {}, homes or {}, bulk)
            else:
                self.tray.remove(back)
            self.pieces[point] = back
            changed = True
        if bulk:
            self._loose = []
        return changed

    def _pick(self, point: str, hint: dict[str, tuple[str, str]], homes: dict[str, str], bulk: bool) -> Piece:
        """A disk from the tray for ``point`` (see ``follow``); a new one if the tray is empty."""
        want = hint.get(point)
        home = homes.get(point)
        # A setup puts the start position's disks; one disk arriving on a home row is a priest.
        for rank in (1, 2, 0, 3) if bulk else (0, 1, 2, 3):
            for piece in self.tray:
                if self._fits(rank, piece, want, home):
                    self.tray.remove(piece)
                    return piece
        return self._new("unknown", "man")

    def _fits(self, rank: int, piece: Piece, want: tuple[str, str] | None, home: str | None) -> bool:
        if rank == 0:
            return piece.kind == "priest" and piece.side == home
        if rank == 1:
            return want is not None and self._sk(piece) == want
        if rank == 2:
            return want is not None and piece.side == want[0]
        return True

    def start_hint(self, ruleset: str, position: str = "") -> dict[str, tuple[str, str]]:
        """point name -> (side, kind) of ``ruleset``'s start position (or ``position``'s)."""
        start, _ = inventory(ruleset, position)
        return {self.names[p]: sk for p, sk in start.items()}

    @staticmethod
    def home_points(ruleset: str) -> dict[str, str]:
        """point name -> side, for the home rows where a bow priest enters (Awithlaknakwe)."""
        geometry = zuni.new_game(ruleset).geometry
        if geometry.shape != "squares":
            return {}
        return {geometry.names[p]: zuni.SIDE_NAMES[side] for side, pts in geometry.homes.items() for p in pts}

    def setup_plan(
        self, ruleset: str, want: dict[str, tuple[str, str]] | None = None
    ) -> tuple[list[str], list[tuple[str, str, str]]]:
        """What a person does to set up ``ruleset``'s start position (or ``want``: point
        -> (side, kind), a position's disks): the points to clear (disks that do not
        belong there) and the ``(point, side, kind)`` disks to put down. The hand is
        emptied into the tray first."""
        if want is None:
            start, _ = inventory(ruleset)
            want = {self.names[p]: sk for p, sk in start.items()}
        clear = [n for n in self.occupied() if n not in want or self._sk(self.pieces[n]) != want[n]]
        put = [(n, want[n][0], want[n][1]) for n in self.names if n in want and (n in clear or n not in self.pieces)]
        return clear, put

    @staticmethod
    def _sk(piece: Piece) -> tuple[str, str]:
        return (piece.side, piece.kind)

    def restock(self, ruleset: str) -> None:
        """Make the disks on and off the board those of ``ruleset`` (a new game with other
        rules may need other disks: four players bring four armies): add what is
        missing to the tray, remove surplus disks from the tray."""
        start, reserve = inventory(ruleset)
        need: dict[tuple[str, str], int] = {}
        for sk in list(start.values()) + reserve:
            need[sk] = need.get(sk, 0) + 1
        have: dict[tuple[str, str], int] = {}
        for piece in list(self.pieces.values()) + self.hand + self.tray:
            have[self._sk(piece)] = have.get(self._sk(piece), 0) + 1
        for sk, count in need.items():
            for _ in range(count - have.get(sk, 0)):
                self.tray.append(self._new(*sk))
        for sk, count in have.items():
            surplus = count - need.get(sk, 0)
            for piece in list(self.tray):
                if surplus <= 0:
                    break
                if self._sk(piece) == sk:
                    self.tray.remove(piece)
                    surplus -= 1

    def settle(self, disks: dict[str, list[str]] | None) -> bool:
        """Make each disk on the board the game's own: ``disks`` (point -> [side, kind],
        ``link.mirror.disks_of``) is whose piece stands where in the game's position.
        The reed switches cannot tell sides apart, so a disk left standing where the
        next position has another side's (a game set up from a position over the start
        one, a take-back, a replay) would keep its old colour. Only when the disks
        stand exactly on the game's points (the position is set up: nothing lifted or
        half moved), a wrong disk is exchanged for a right one from the tray, or else
        takes the right side. Returns whether anything changed."""
        if not disks or sorted(disks) != sorted(self.pieces):
            return False
        changed = False
        for point in self.occupied():
            want = (str(disks[point][0]), str(disks[point][1]))
            piece = self.pieces[point]
            if self._sk(piece) == want:
                continue
            spare = next((p for p in self.tray if self._sk(p) == want), None)
            if spare is not None:
                self.tray[self.tray.index(spare)] = piece
                self.pieces[point] = spare
            else:
                piece.side, piece.kind = want
            changed = True
        return changed

    def narrate(self, status: dict[str, Any] | None) -> dict[str, Any]:
        """The game in a player's words, from the board's state report (``Narrator``)."""
        return self.narrator.follow(status)

    def as_json(self) -> WorldJson:
        return {
            "pieces": {name: self.pieces[name].as_json() for name in self.occupied()},
            "hand": [p.as_json() for p in self.hand],
            "tray": [p.as_json() for p in self.tray],
        }


class Narrator:
    """The game as a player follows it on the page, from the board's state reports
    (``phase``, ``moves``, ``occupancy``, ``hostmove``, ``result``, ``error``): the move
    list, the last move marked and said in words, the computer's move while the board
    shows it, why a move was refused, and the result.

    The board reports how many moves it holds, not which: the narrator keeps its own
    copy of the game and finds each new move as the one the board was showing (a host
    move is the only move the board takes while it shows one), else as the legal move
    that leaves the reported occupancy.

    >>> n = Narrator()
    >>> n.follow({"game": "g1", "ruleset": "mosona", "moves": 0, "phase": "play"})["moves"]
    []
    """

    def __init__(self) -> None:
        self.game_id: str | None = None
        self.ruleset = ""
        self.position = ""  # the start position of a game set up from one
        self.game: Any = None
        self.texts: list[str] = []
        self.lost = False  # a move could not be followed: the list stops until a new game
        self.shown = ""  # the host move the board showed last
        # Asks the board for its game's moves (the virtual board's ``moves?``): a page
        # that came after some moves (`zuni sim` on a flash with a game) follows from there.
        self.fetch_moves: Callable[[], list[str] | None] | None = None

    def follow(self, status: dict[str, Any] | None) -> dict[str, Any]:
        if not status or not status.get("ruleset"):
            return {
                "moves": [],
                "numbered": "",
                "last": None,
                "showing": "",
                "result": "",
                "refusal": "",
                "announce": [],
            }
        self._update(status)
        return self._describe(status)

    def _update(self, status: dict[str, Any]) -> None:
        game_id, ruleset = str(status.get("game", "")), str(status["ruleset"])
        position = str(status.get("position", ""))
        if game_id != self.game_id or ruleset != self.ruleset or position != self.position or self.game is None:
            self.game_id, self.ruleset, self.position = game_id, ruleset, position
            self.texts = []
            self.lost = False
            try:
                self.game = start_game(ruleset, position)
            except zuni.ZuniError:
                self.game = zuni.new_game(ruleset)  # a position this host cannot read
                self.lost = True
        count = int(status.get("moves", 0))
        while len(self.texts) > count:
            self.texts.pop()
            self.game.pop()
        if self.game.is_game_over() and status.get("phase") != "over":
            self.game.clear_agreement()  # an agreed end taken back
        if len(self.texts) + 1 == count and not self.lost:
            move = self._find(status)
            if move is None:
                self.lost = not self._catch_up(count)
            else:
                self.game.push(move)
                self.texts.append(move.text())
        elif len(self.texts) < count:
            self.lost = not self._catch_up(count)
        if status.get("phase") == "over" and status.get("termination") == "time" and not self.lost:
            from zuniboard.games.clock_view import apply_time_loss

            apply_time_loss(self.game, str(status.get("result", "")))  # a flag fell
        host = status.get("hostmove")
        self.shown = str(host) if host else ""

    def _catch_up(self, count: int) -> bool:
        """The board's ``count`` moves from the board itself (``fetch_moves``); False when
        they cannot be had or followed."""
        if self.fetch_moves is None:
            return False
        texts = self.fetch_moves()
        if texts is None or len(texts) != count:
            return False
        try:
            game = start_game(self.ruleset, self.position)
            for text in texts:
                game.push_text(text)
        except zuni.ZuniError:
            return False
        self.game = game
        self.texts = [m.text() for m in game.move_stack]
        return True

    def _find(self, status: dict[str, Any]) -> Any:
        legal = self.game.legal_moves()
        if self.shown:
            for move in legal:
                if move.text() == self.shown:
                    return move
        occupancy = str(status.get("occupancy", ""))
        if len(occupancy) != len(self.game.geometry.names):
            return None
        for move in legal:
            after = self.game.copy()
            after.push(move)
            if "".join("1" if v else "0" for v in after.occupancy()) == occupancy:
                return move
        return None

    def _describe(self, status: dict[str, Any]) -> dict[str, Any]:
        from zuniboard.games.words import (
            board_error_words,
            moves_per_round,
            numbered_moves,
            occupied_names,
            restore_words,
            side_title,
        )

        game = self.game
        names = game.geometry.names
        out: dict[str, Any] = {"moves": list(self.texts), "lost": self.lost}
        per = moves_per_round(game.ruleset)
        out["per"] = per
        out["numbered"] = numbered_moves(game, self.texts)
        out["last"] = _last_move_view(game) if self.texts and not self.lost else None
        # Whose disk stands where (World.settle): the game's real position.
        out["disks"] = None if self.lost else disks_of(game)
        # The move the board shows: in words, and its path and captures, drawn on the page.
        out["showing"], out["shown"] = _shown_view(game, self.shown) if self.shown and not self.lost else ("", None)
        out["result"] = _result_words(game, status, self.lost) if status.get("phase") == "over" else ""
        out["turn"] = side_title(str(status.get("turn", ""))) if status.get("phase") == "play" else ""
        # Setting up (a new game, a take-back, a restart): which points to put right.
        out["setup"] = ""
        occupancy = str(status.get("occupancy", ""))
        if status.get("phase") == "setup" and not self.lost and len(occupancy) == len(names):
            shown = {str(names[i]) for i, c in enumerate(occupancy) if c == "1"}
            out["setup"] = restore_words(occupied_names(game), shown)
        out["refusal"] = ""
        error = str(status.get("error", ""))
        if error:
            out["refusal"] = error.replace("_", " ") if self.lost else board_error_words(game, error)
        out["legal"] = (
            sorted(m.text() for m in game.legal_moves())
            if status.get("phase") == "play" and not self.lost and not game.is_game_over()
            else []
        )
        out["announce"] = self._announcements(out, status)
        return out

    def _announcements(self, out: dict[str, Any], status: dict[str, Any]) -> list[list[Any]]:
        """What the page announces and speaks of this view (``speech.spoken``'s words):
        ``[key, text, cuts]``, a key per event so that each is said once."""
        said: list[list[Any]] = []
        game_key = "%s:%d" % (self.game_id, len(self.texts))
        last = out.get("last")
        if last:
            said.append(["move:" + game_key, spoken("ai", last["words"].replace(" played ", " plays ", 1)), True])
        if out.get("showing"):
            said.append(["showing:%s:%s" % (game_key, self.shown), spoken("ai", out["showing"]), True])
        if out.get("setup"):
            said.append(["setup:%s:%s" % (game_key, out["setup"]), "set up the pieces: %s" % out["setup"], False])
        if out.get("refusal"):
            said.append(["refusal:%s:%s" % (game_key, out["refusal"]), spoken("wrong", out["refusal"]), False])
        if out.get("result"):
            said.append(["result:" + game_key, spoken("over", out["result"]), False])
        elif out.get("turn") and not out.get("showing"):
            said.append(["turn:" + game_key, "%s to move" % out["turn"], False])
        return [a for a in said if a[1]]


def _last_move_view(game: zuni.Game) -> dict[str, object]:
    """The last move played, for the page: its text, mover, words, path and captures."""
    from zuniboard.games.words import plays_words

    names = game.geometry.names
    before = game.copy()
    before.pop()
    move = game.move_stack[-1]
    words = plays_words(before, move)
    return {
        "text": move.text(),
        "side": str(zuni.SIDE_NAMES[before.turn]),
        "words": words.replace(" plays ", " played ", 1),
        "path": [str(names[p]) for p in move.path],
        "took": [str(names[p]) for p in move.captures],
        "from": str(names[move.origin]) if move.origin >= 0 else "",
        "to": str(names[move.dest]) if move.dest >= 0 else "",
    }


def _shown_view(game: zuni.Game, text: str) -> tuple[str, dict[str, object] | None]:
    """The move ``text`` the board shows: in words, and its text, path and captures."""
    from zuniboard.games.words import plays_words

    names = game.geometry.names
    try:
        shown = game.parse_move(text)
        words = plays_words(game, shown)
    except zuni.MoveError:
        return "the board shows %s" % text, None
    view: dict[str, object] = {
        "text": shown.text(),
        "path": [str(names[p]) for p in shown.path],
        "took": [str(names[p]) for p in shown.captures],
    }
    return words, view


def _result_words(game: zuni.Game, status: dict[str, object], lost: bool) -> str:
    """How the game over on the board ended: the rules' words, else the board's result."""
    from zuniboard.games.words import outcome_words, side_title

    outcome = game.outcome()
    if outcome is not None and not lost:
        return outcome_words(game, outcome)
    if status.get("result"):
        result = str(status["result"])
        head = "A draw" if result == "draw" else "%s wins" % side_title(result)
        return "%s (%s)" % (head, status.get("termination", ""))
    return ""
