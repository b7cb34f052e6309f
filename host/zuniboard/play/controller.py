"""The game of `zuni play` as a pure state machine: ``GameController``.

Events in (typed lines, the board's moves, state and reports, the computer's answers,
the replies to the board requests it asked for, the time), actions out (say something,
draw the position, think, stop thinking, ask the board something, let the terminal's
hand move pieces, and the facts the game log keeps: a move played, moves taken back, the
game ended or reopened). No threads and no I/O: ``zuniboard.play.session.PlaySession``
does the actions on the link, the log, the searches and the user interface and feeds the
events back; the terminal, the page (``POST /api/line``) and the tests drive the same
controller. Commands are dispatched from one table (``prompt.COMMANDS`` names them).

The board is the truth about the game: the controller mirrors the board's move list
into its own ``zuni.Game`` and follows take-backs and new games the board makes on its
own. The computer's move is asked of the board as a host move; the game goes on when
the board reports it carried out (by a person, or on the virtual board by the terminal's
hand once it has been lit for ``show_move_s``).

>>> c = GameController(hand=True)
>>> acts = c.open("g1", "mosona", "", seats_for("mosona", {}), [], number=1, now=0.0)
>>> [type(a).__name__ for a in c.line("/h", now=0.0)]   # nobody's turn yet: the board is not set up
['Say']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypedDict, assert_never

import zuni
from zuniboard.ai import LEVEL_TIMES
from zuniboard.games import clock_view
from zuniboard.games.clock_view import ClockView
from zuniboard.games.spoken import utterance
from zuniboard.games.words import (
    MARKS_HELP,
    HintNote,
    board_error_words,
    count_words,
    hint_note,
    hint_words,
    move_words,
    numbered_moves,
    occupied_names,
    outcome_words,
    piece_moves_words,
    plays_words,
    position_words,
    restore_words,
    side_title,
)
from zuniboard.link.mirror import disks_of, start_game
from zuniboard.play.actions import (
    CANCEL,
    REDRAW,
    Action,
    Cut,
    Ended,
    Judge,
    MakeMove,
    MoveGraded,
    NewGame,
    Played,
    Quit,
    Referee,
    Reopened,
    Say,
    SetUp,
    ShowProgress,
    Switched,
    Think,
    request,
    say,
)
from zuniboard.play.assist import ASSISTS, DEFAULT_ASSIST, Assist
from zuniboard.play.gamelog import common_prefix
from zuniboard.play.grades import GRADES, MoveGrade
from zuniboard.play.prompt import COMMANDS, CONFIRM, NO, YES, Line, completions, help_text, read_line
from zuniboard.play.seats import Seat, seats_for
from zuniboard.play.thinking import Found, Graded, SearchFailed, Searching, SearchPost

RETRY_S = 0.3  # the board was not ready (setting up, reconnecting): ask again after this
REFUSED_RETRY_S = 2.0  # the board refused the computer's move: ask again after this
STATE_POLL_S = 0.5  # while the board's phase is not known (after a reset, a game it switched to): ask this often
# The board says when setup turns into play (a "state" event); asking during setup is
# only a fallback for an event lost with the connection.
SETUP_POLL_S = 5.0
HINT_TIME_S = 0.3  # thinking time of a hint
HINT_LEVEL = 2
# A person's move is graded (docs/strength.md, "Move grades") in this long, or in this
# many nodes when the computer thinks by node counts: short, so that the grade is said
# before the computer's reply changes the position (which drops a grade not yet found).
GRADE_TIME_S = 0.3
GRADE_NODES = 3000
# The computer's move stays lit on the board this long before the terminal's hand on the
# virtual board carries it out, so that a person sees it (on the page, or on LEDs).
SHOW_AI_MOVE_S = 2.0
MOVES_AT_BOARD = "on the board"
MOVES_AT_PAGE = "on the page"  # the virtual board with --manual: the terminal's hand is off
SAID_KEPT = 6  # the view keeps this many of the last things said (the page shows them)
# The ends a remote game's referee declares (the others come with the moves).
DECLARED = ("resign", "agreed-draw", "agreed-count", "time", "abandoned", "abandoned-draw")


# The clock times the board sent with its moves: (game, index, text) -> (ms taken, ms left).
MoveTimes = dict[tuple[str, int, str], tuple[int, int]]


# The last move as the page marks it ("from" and "to" are keywords: the functional form).
LastMove = TypedDict(
    "LastMove",
    {"text": str, "side": str, "words": str, "path": list[str], "took": list[str], "from": str, "to": str},
)


class ShownMove(TypedDict):
    """The computer's move the board shows now."""

    text: str
    path: list[str]
    took: list[str]


class GradedMove(TypedDict):
    index: int
    side: str
    move: str
    grade: str
    words: str
    colour: str


class Review(TypedDict):
    """The grades of the game so far: per side the count of each grade, every move graded."""

    counts: dict[str, dict[str, int]]
    moves: list[GradedMove]


class SeatHelp(TypedDict):
    level: str
    hints_left: int | None


class GameView(TypedDict, total=False):
    """The game as the page shows it (JSON: ``GameController.view``)."""

    controller: bool
    said: list[list[str]]
    announce: list[list[str | bool]]
    moves: list[str]
    lost: bool
    numbered: str
    last: LastMove | None
    disks: dict[str, list[str]]
    showing: str
    shown: ShownMove | None
    result: str
    turn: str
    seats: dict[str, str]
    number: int
    refusal: str
    legal: list[str]
    review: Review
    help: dict[str, SeatHelp]


def same_effect(game: zuni.Game, text: str, move: zuni.Move) -> bool:
    """``text`` is another path of ``move`` with the same start, end and captures (a chain
    round a loop, either way): a board that senses occupancy cannot tell them apart."""
    try:
        other = game.parse_move(text)
    except zuni.MoveError:
        return False
    return bool(
        other.origin == move.origin and other.dest == move.dest and sorted(other.captures) == sorted(move.captures)
    )


# What a person reads when the board's LED supply switch trips (the board's ``fault``
# event and the state's ``fault=``): the cause to look for, in plain words.
SUPPLY_FAULT_WORDS = "the LED supply switched off: too much current (short on the LED line?)"


def supply_fault_words(fault: str) -> str:
    """The sentence for a board's ``fault`` (``led-supply``; a newer board's other kinds
    are said by name)."""
    if fault.strip() == "led-supply":
        return SUPPLY_FAULT_WORDS
    return "the board reports a fault: %s" % fault.strip()


class GameController:
    """One game on the board between people and the computer (``seats``)."""

    def __init__(
        self,
        *,
        hand: bool = False,
        deterministic: bool = False,
        show_move_s: float = SHOW_AI_MOVE_S,
        moves_at: str = MOVES_AT_BOARD,
    ) -> None:
        self.hand = hand  # the terminal's hand moves pieces (the virtual board)
        self.moves_at = moves_at  # where a person makes moves (without the hand, typed ones too)
        self.deterministic = deterministic
        self.show_move_s = show_move_s
        self.seats: dict[str, Seat] = {}
        self.game: Any = None  # zuni.Game mirroring the board's game
        self.moves: list[str] = []
        self.board_game = ""  # the board's id of its game
        self.ruleset = ""
        self.position = ""  # the start position of the game mirrored ("": the rules' start)
        self.number = 0  # the game's number in the log (said to the player)
        self.phase = "?"  # the board's: setup, play, over ("?" not known yet)
        self.quit = False
        self.deferred = False  # the board's move list was being refetched: reconcile again later
        self.gen = 0  # position generation: answers for older positions are dropped
        self.busy: set[str] = set()  # searches running: ai, hint
        self.said: list[tuple[str, str]] = []  # the last things said (tone, text)
        self.said_count = 0  # how many things were said in all (the page's announcements count on it)
        self.ai_move: str | None = None  # the computer's move for this position
        self.ai_sent = False  # ... shown on the board as a host move
        self.offer: tuple[str, str] | None = None  # (what, side) a person offered
        self.hint_shown = False
        self.hint_table = ""  # the endgame tables' verdict of the hint found, in words ('' none)
        # The hint as the page shows it beside the board (``words.hint_note``), None: none.
        self.hint_note: HintNote | None = None
        self.last_wrong = ""
        self.ai_unsaid = False  # the computer's move found during setup, not said yet
        self.board_error = ""  # the mistake the board shows now, as its last state said
        # The board's fault (``fault=`` in its state, the ``fault`` event), said once: the
        # event is best effort, so a state that carries it says it when the event was lost.
        self.board_fault = ""
        self.confirm: str | None = None  # a command that ends the game, asked about
        self.typed_ahead: zuni.Move | None = None  # a move typed while the board was being set up
        self.ahead_unsaid = False  # ... not told yet that it waits for the setup
        self.ahead_text = ""
        self.typed = ""  # the typed move the terminal's hand made, until the board reports it
        # The game's clocks as the board reports them (docs/clocks.md); off without.
        self.clocks = ClockView()
        self.low_said: tuple[str, int] | None = None  # (side, moves) whose low time was said
        # A remote game (docs/remote.md): the referee decides take-backs, agreements and
        # resignations; the commands ask it (``referee`` actions) and its word comes back
        # through ``remote_move``, ``offered`` and ``declared``.
        self.remote = False
        self.asked: tuple[str, str] | None = None  # an offer (what, by whom) waiting for our yes or no
        self.gone: list[str] = []  # remote seats gone longer than the game allows
        self.show_at: float | None = None  # when the hand carries out the computer's move
        self.send_at = 0.0
        self.state_at = 0.0
        # One table: command name -> handler (``prompt.COMMANDS`` lists them for help).
        self.commands: dict[str, Callable[[str, float], list[Action]]] = {
            "hint": lambda name, now: self._hint(),
            "undo": lambda name, now: self._take_back(),
            "resign": lambda name, now: self._resign(),
            "draw": lambda name, now: self._agree(name),
            "count": lambda name, now: self._agree(name),
            "claim": lambda name, now: self._claim(),
            "new": lambda name, now: self._new(),
            "board": lambda name, now: [REDRAW, say(MARKS_HELP)],
            "where": lambda name, now: self._where(now),
            "moves": lambda name, now: self._piece_moves(),
            "last": lambda name, now: self._last(),
            "help": lambda name, now: [say(help_text(self.hand))],
            "quit": lambda name, now: self._quit(),
        }
        # Help per seat (``play.assist``), the hints each side may still ask this game
        # (None: no limit), and the grades of the people's moves (move index -> grade).
        self.assist: dict[str, Assist] = {}
        self.hint_limit: int | None = None
        self.hints_used: dict[str, int] = {}
        self.grades: dict[int, tuple[str, str, MoveGrade]] = {}  # index -> (side, move, grade)
        self.arg = ""  # what followed the command being done (``moves m5``: m5)
        assert set(self.commands) == set(COMMANDS), "every command has one handler"

    # -- what it is ------------------------------------------------------------------
    def turn_side(self) -> str | None:
        if self.game is None or self.game.is_game_over():
            return None
        return str(zuni.SIDE_NAMES[self.game.turn])

    def is_over(self) -> bool:
        return self.game is not None and bool(self.game.is_game_over())

    def seat(self, side: str) -> Seat:
        return self.seats.get(side) or Seat("human")

    def help_of(self, side: str) -> Assist:
        """The help ``side``'s seat gets (``play.assist``; the default when not set)."""
        return self.assist.get(side) or ASSISTS[DEFAULT_ASSIST]

    def help_logged(self) -> dict[str, str]:
        """The help level of each seat a person plays (the log keeps it with the game)."""
        return {side: self.help_of(side).name for side, seat in self.seats.items() if not seat.is_away}

    def hints_left(self, side: str) -> int | None:
        if self.hint_limit is None:
            return None
        return max(0, self.hint_limit - self.hints_used.get(side, 0))

    def human_side(self) -> str | None:
        """The side a typed command speaks for: the side to move if a person plays it,
        else the first side a person plays."""
        side = self.turn_side()
        if side is not None and not self.seat(side).is_away:
            return side
        for s, seat in self.seats.items():
            if not seat.is_away:
                return s
        return None

    def seats_text(self) -> str:
        return ", ".join("%s %s" % (s, seat) for s, seat in self.seats.items())

    def read(self, text: str) -> Line:
        """What a typed ``text`` means now (``commands.Line``): a move, a command or why neither."""
        return read_line(text, self.game)

    def completions(self) -> list[str]:
        """What Tab offers now: the legal moves, then the command words."""
        return completions(self.game)

    # -- opening a game ---------------------------------------------------------------
    def open(
        self,
        board_game: str,
        ruleset: str,
        position: str,
        seats: dict[str, Seat],
        moves: list[str],
        *,
        number: int,
        now: float,
        state: dict[str, str] | None = None,
        times: MoveTimes | None = None,
    ) -> list[Action]:
        """Mirrors board game ``board_game`` (from ``position``) with its ``moves`` so far
        (``state``: the board's last state, its clocks; ``times``: the clock times the
        board sent with its moves)."""
        out: list[Action] = [CANCEL]
        self.seats = dict(seats)
        self.board_game = board_game
        self.ruleset = ruleset
        self.position = position
        self.number = number
        self.game = start_game(ruleset, position)
        self.moves = []
        self.grades = {}
        self.hints_used = {}
        self.deferred = False
        self.clocks.report(state or {}, now)
        self._new_position(out)
        for i, text in enumerate(moves):
            if not self._apply(out, i, text, now, times, quiet=True):
                break
        self.phase = "?"
        self.state_at = now
        return out

    def shown_on_resume(self, hostmove: str, now: float) -> None:
        """Resumed while the board still shows the computer's move ``hostmove``: keep it."""
        side = self.turn_side()
        if hostmove and side is not None and self.seat(side).is_away:
            self.ai_move = hostmove
            self.ai_sent = True
            if self.hand:
                self.show_at = now + self.show_move_s

    def seats_for_board_game(self, ruleset: str, players: dict[str, str | None]) -> dict[str, Seat]:
        """The seats of a game the board started on its own: the seats now, if they fit."""
        if self.seats == {} or set(self.seats) != set(seats_for(ruleset, {})):
            return seats_for(ruleset, players)
        return self.seats

    # -- typed lines -----------------------------------------------------------------
    def line(self, text: str, now: float, where: str = "terminal") -> list[Action]:
        """A line typed by a person at the ``terminal`` (or a test) or on the ``page``."""
        word = text.strip()
        if not word:
            return []
        out: list[Action] = []
        if self.asked is not None and word.lower() in YES | NO:
            what, self.asked = self.asked[0], None
            return self._said(self._referee("answer", what, "yes" if word.lower() in YES else "no"))
        if self.confirm is not None:
            what, self.confirm = self.confirm, None
            if word.lower() in YES:
                return self._said(self.commands[what](what, now))
            out.append(say("%s: not done" % what))
            if word.lower() in ("n", "no"):
                return self._said(out)
        read = self.read(word)
        if read.command == "quit" and where == "page":
            # The page cannot start `zuni play` again: leaving is the terminal's.
            out.append(say("quit: type it at the terminal (the page stays with the game until then)", "wrong"))
        elif read.command:
            self.arg = read.arg
            out += self._command(read.command, now)
        elif read.move is not None:
            out += self._typed_move(read.text, read.move)
        else:
            out.append(say(read.error, "wrong"))
        return self._said(out)

    def _command(self, name: str, now: float) -> list[Action]:
        if name == "claim" and not self.remote:
            return self._claim()  # says it is for remote games
        if name in CONFIRM:
            question = self._question(name)
            if not question:
                return [
                    say("%s: %s" % (name, "the game is over" if self.is_over() else "no person plays in this game"))
                ]
            self.confirm = name
            return [say(question + " (yes/no)", "ask")]
        return self.commands[name](name, now)

    def _question(self, name: str) -> str:
        """What to ask before ``name`` ends the game ('' when it cannot be done now)."""
        side = self.human_side()
        if self.game is None or self.is_over() or side is None:
            return ""
        if name == "resign":
            return "resign the game for %s?" % side
        if name == "claim":
            if not self.remote:
                return ""
            return "claim the win for %s (%s gone)?" % (side, "/".join(self.gone) or "nobody is")
        word = "a draw" if name == "draw" else "to end the game by counting the pieces"
        return "offer %s for %s?" % (word, side)

    # -- questions: where, moves, last -------------------------------------------------------
    def _where(self, now: float) -> list[Action]:
        if self.game is None:
            return [say("where: no game yet", "answer")]
        return [say(position_words(self.game, self.clocks.text(now).replace(" *", " (running)")), "answer")]

    def _piece_moves(self) -> list[Action]:
        if not self.arg:
            return [say("moves: name a point, e.g. moves m5", "wrong")]
        if self.game is None:
            return [say("moves: no game yet", "answer")]
        return [say(piece_moves_words(self.game, self.arg), "answer")]

    def _last(self) -> list[Action]:
        if self.game is None or not self.moves:
            return [say("no move yet", "answer")]
        before = self.game.copy()
        before.pop()
        move = self.game.move_stack[-1]
        words = plays_words(before, move).replace(" plays ", " played ", 1)
        return [say("%d. %s" % (len(self.moves), words), "answer")]

    def _quit(self) -> list[Action]:
        self.quit = True
        return [Quit()]

    def _new(self) -> list[Action]:
        if not self.is_over():
            return [say("the game is not over: finish it, or resign, draw or count first")]
        return [NewGame()]

    def _typed_move(self, text: str, move: zuni.Move) -> list[Action]:
        if not self.hand:
            return [
                say(
                    "%s: make it %s (the terminal does not move pieces %s)" % (text, self.moves_at, self._no_hand_why())
                )
            ]
        side = self.turn_side()
        if side is not None and self.seat(side).is_away:
            return [say("%r: it is %s's turn (%s)" % (text, side, self._who(side)))]
        if self.phase != "play":
            # The phase known may be a moment old: ask; the move is made once the board
            # is set up (at once, if it is already).
            self.typed_ahead = move
            self.ahead_unsaid = True
            self.ahead_text = text
            return [request("state")]
        self.typed = text
        return [MakeMove(move)]

    def _no_hand_why(self) -> str:
        return "with --manual" if self.moves_at == MOVES_AT_PAGE else "on a real board"

    def _hint(self) -> list[Action]:
        side = self.turn_side()
        if side is None:
            return [say("no hint: the game is over", "hint")]
        if self.seat(side).is_away:
            return [say("no hint: it is %s's turn (%s)" % (side, self._who(side)), "hint")]
        if "hint" in self.busy:
            return []
        # A refused hint also clears the board's own (it shows one when the host sends
        # none within a second of HINT): the help level is the board's too.
        if not self.help_of(side).hints:
            return [say("no hint: %s plays without hints (help level %s)" % (side, self.help_of(side).name), "hint")]
        left = self.hints_left(side)
        if left == 0:
            return [
                say(
                    "no hint: %s has had the %s of this game" % (side, count_words(self.hint_limit or 0, "hint")),
                    "hint",
                )
            ]
        self.hints_used[side] = self.hints_used.get(side, 0) + 1
        limits = () if self.deterministic else (("time_limit", HINT_TIME_S),)
        more = "" if left is None else " (%s left after this one)" % count_words(left - 1, "hint")
        return [
            say("looking for a good move for %s%s" % (side, more), "hint"),
            self._think("hint", side, HINT_LEVEL, limits),
        ]

    def _think(self, what: str, side: str, level: int, limits: tuple[tuple[str, float], ...] = ()) -> Think:
        self.busy.add(what)
        return Think(what, side, self.game.copy(), level, self.gen, limits)

    def _take_back(self) -> list[Action]:
        if self.remote:
            if self.game is None or self.is_over():
                return [say("nothing to take back: the game is over", "takeback")]
            return self._referee("offer", "takeback")
        game = self.game
        outcome = game.outcome() if game is not None else None
        if outcome is not None and outcome.termination in ("resign", "agreed-draw", "agreed-count"):
            return [say("the game ended by %s: new starts a new game" % outcome.termination, "takeback")]
        if game is None or not self.moves:
            return [say("nothing to take back", "takeback")]
        # Back to before the last move a person made: the computer's replies after it
        # go too, so that the same person is to move again.
        count = 0
        previous = game.copy()
        while previous.move_stack:
            previous.pop()
            count += 1
            if not self.seat(str(zuni.SIDE_NAMES[previous.turn])).is_ai:
                break
        self.busy.clear()
        return [CANCEL, request("take_back", str(count))]

    def _resign(self) -> list[Action]:
        side = self.human_side()
        if self.game is None or self.is_over() or side is None:
            return [say("nobody to resign: %s" % ("the game is over" if self.is_over() else "no person plays"))]
        if self.remote:
            return self._referee("resign")
        return [request("resign", side)]

    def _agree(self, what: str) -> list[Action]:
        side = self.human_side()
        game = self.game
        if game is None or self.is_over() or side is None:
            return [say("no agreement possible now")]
        if self.remote:
            if what == "draw" and self.gone:
                return self._referee("claim", "draw")
            return self._referee("offer", what)
        word = "a draw" if what == "draw" else "an end by counting"
        team = game.team_of(zuni.SIDE_NAMES.index(side))
        others = [s for s in self.seats if game.team_of(zuni.SIDE_NAMES.index(s)) != team]
        people = [s for s in others if not self.seat(s).is_ai]
        if people:
            if self.offer is None or self.offer[0] != what:
                self.offer = (what, side)
                return [say("%s offers %s: %s, type %s to agree" % (side, word, "/".join(people), what))]
        elif others:
            # The computer weighs the offer (a short search: the runner's, see ``judged``).
            return [Judge(what, others[0], game.copy(), side)]
        return [request("agree", what)]

    def judged(self, what: str, offered_by: str, answer: str, now: float) -> list[Action]:
        """The computer's word on ``what`` offered by ``offered_by`` (``judge.verdict``:
        '' it agrees, else why not)."""
        if self.game is None or self.is_over():
            return []
        if answer:
            word = "a draw" if what == "draw" else "an end by counting"
            return self._said([say("%s offers %s: %s" % (offered_by, word, answer))])
        return [request("agree", what)]

    # -- a remote game: what is asked of the referee, and its word -------------------------
    def _who(self, side: str) -> str:
        seat = self.seat(side)
        return seat.name if seat.is_remote else "the computer" if seat.is_ai else "a person here"

    def _referee(self, what: str, *args: str) -> list[Action]:
        """Asks the referee (the runner sends it); ``what`` offer, answer, resign, claim."""
        side = self.human_side()
        if side is None:
            return [say("%s: no seat of this board plays in this game" % what)]
        words = {
            "offer": "asked the others to agree: %s" % " ".join(args),
            "answer": "answered %s to the %s offer" % (args[-1], args[0]) if args else "",
            "resign": "resigning %s: sent to the referee" % side,
            "claim": "claiming %s: sent to the referee" % ("a draw" if args == ("draw",) else "the win"),
        }
        return [Referee(what, side, args), say(words[what])]

    def _claim(self) -> list[Action]:
        if not self.remote:
            return [say("claim: only in a remote game, when the opponent has been gone too long")]
        return self._referee("claim", "win")

    def remote_move(self, text: str, now: float) -> list[Action]:
        """A remote player's move, as the referee took it: shown on the board for a person
        here to carry out, exactly as the computer's move is."""
        side = self.turn_side()
        if side is None or not self.seat(side).is_remote or self.ai_move == text:
            return []
        try:
            move = self.game.parse_move(text)
        except zuni.MoveError as exc:
            return self._said([say("the referee sent %r, which the rules refuse here: %s" % (text, exc), "error")])
        self.ai_move = move.text()
        self.ai_sent = False
        self.send_at = now + RETRY_S
        return self._said(
            [say("%s (%s)" % (plays_words(self.game, move), self._who(side)), "ai")]
            + [request("host_move", self.ai_move)]
        )

    def offered(self, what: str, by: str) -> list[Action]:
        """A remote player offers ``what`` (takeback, draw, count): we answer yes or no."""
        if self.asked == (what, by):
            return []
        self.asked = (what, by)
        word = {"takeback": "to take back their last move", "draw": "a draw", "count": "to end by counting"}[what]
        return self._said([say("%s (%s) offers %s: agree? (yes/no)" % (by, self._who(by), word), "ask")])

    def offer_closed(self, note: str) -> list[Action]:
        """The offer asked about is gone (answered, declined, or a move made)."""
        out = [say(note)] if note else []
        self.asked = None
        return self._said(out)

    def declared(self, result: str, termination: str) -> list[Action]:
        """The referee ended the game by a declaration (resignation, agreement, a flag,
        a claim): the mirror ends so, and the board is asked to end it too."""
        game = self.game
        if game is None or game.is_game_over() or termination not in DECLARED:
            return []
        if termination in ("agreed-draw", "agreed-count", "abandoned-draw"):
            what = "count" if termination == "agreed-count" else "draw"
            outcome = game.agree(what)
            board = request("agree", what)
        else:
            loser = clock_view.loser_side(game, result)
            outcome = game.lose_on_time(loser) if termination == "time" else game.resign(loser)
            board = request("resign", str(zuni.SIDE_NAMES[loser]))
        outcome.termination = termination
        self.asked = None
        return self._said(self._declare(outcome) + [board])

    # -- the board's replies -----------------------------------------------------------
    def replied(
        self,
        name: str,
        args: tuple[str, ...],
        now: float,
        error: str = "",
        by_board: bool = False,
        reply: dict[str, str] | None = None,
    ) -> list[Action]:
        """The board answered request ``name`` (``error``: why not; ``by_board``: the
        board refused it, else the link failed; ``reply``: what it said)."""
        out: list[Action] = []
        if name == "host_move":
            if error:
                self.send_at = now + RETRY_S
                if by_board and "no game in play" not in error:
                    out.append(say("the board refused the computer's move %s: %s" % (self.ai_move, error), "error"))
                    self.send_at = now + REFUSED_RETRY_S
                return self._said(out)
            self.ai_sent = True
            self.phase = "play"
            assert self.ai_move is not None
            # The computer's clock stops once its move is shown (docs/clocks.md).
            self.clocks.switched(self.turn_side() or "", clock_view.side_after(self.game, self.ai_move), now)
            if self.hand:
                out.append(
                    say("the board shows %s; the terminal's hand carries it out in a moment" % self.ai_move, "ai")
                )
                self.show_at = now + self.show_move_s
            else:
                assert self.ai_move is not None
                out.append(say("carry out %s on the board: %s" % (self.ai_move, self._how(self.ai_move)), "ai"))
        elif name == "state":
            if error:
                self.state_at = now + STATE_POLL_S
            else:
                out += self.board_state(dict(reply or {}), now)
            out += self._ahead_note()
        elif name == "hint":
            side = self.turn_side() or "?"
            text = args[0] if args else ""
            table = self.hint_table
            if not text:
                self.hint_shown = False
                self.hint_note = None
            elif error:
                why = "the board refused: %s" % error if by_board else error
                line = hint_words(side, text, "", table, False)
                out.append(say("%s (the board could not show it: %s)" % (line, why), "hint"))
                self.hint_note = hint_note(self.game, side, text, table)
            else:
                self.hint_shown = True
                out.append(say(hint_words(side, text, self._how(text), table, True), "hint"))
                self.hint_note = hint_note(self.game, side, text, table)
        elif name in ("take_back", "resign", "agree"):
            what = "take-back" if name == "take_back" else " ".join((name, *args))
            if error:
                out.append(say("%s: %s%s" % (what, "the board refused: " if by_board else "", error), "error"))
            elif self.is_over():
                pass  # the referee's end of a remote game, which the board now shows too
            elif name == "resign":
                side = args[0]
                out += self._declare(self.game.resign(zuni.SIDE_NAMES.index(side)))
            elif name == "agree":
                out += self._declare(self.game.agree(args[0]))
        return self._said(out)

    def _ahead_note(self) -> list[Action]:
        if self.typed_ahead is None or not self.ahead_unsaid:
            return []
        self.ahead_unsaid = False
        return [say("%s: the board is being set up; the move is made as soon as it is" % self.ahead_text)]

    # -- the board's game ---------------------------------------------------------------
    def board_moves(
        self, game_id: str, moves: list[str], synced: bool, now: float, times: MoveTimes | None = None
    ) -> list[Action]:
        """The board's game and move list as the link knows them now (``synced``: the
        link agrees with the board, not refetching after a divergence; ``times``: the
        clock times it sent with moves, (game, index, text) -> (ms taken, ms left))."""
        if self.game is None:
            return []
        if game_id != self.board_game:
            if not synced:
                self.deferred = True
                return []
            self.deferred = False
            return [Switched(game_id, tuple(moves))]
        out: list[Action] = []
        k = common_prefix(self.moves, moves)
        if k < len(self.moves):
            if not synced:
                # The link is refetching after a divergence: its list is not the board's yet.
                self.deferred = True
                return []
            out += self._cut(k)
        self.deferred = False
        changed = False
        for i in range(len(self.moves), len(moves)):
            if not self._apply(out, i, moves[i], now, times):
                break
            changed = True
        if changed:
            out.append(REDRAW)
            out += self._announce_turn()
        return self._said(out)

    def _cut(self, k: int) -> list[Action]:
        out: list[Action] = []
        n = len(self.moves) - k
        before = occupied_names(self.game)
        while len(self.moves) > k:
            self.moves.pop()
            self.game.pop()
            self.grades.pop(len(self.moves), None)
        self.game.clear_agreement()
        out.append(Cut(k, self.game.copy()))
        self._new_position(out)
        self.phase = "setup"
        todo = restore_words(occupied_names(self.game), before)
        out.append(
            say(
                "took back %s; on the board: %s (the blinking points)"
                % (count_words(n, "move"), todo or "nothing to move"),
                "takeback",
            )
        )
        out.append(REDRAW)
        return out

    def _apply(
        self, out: list[Action], index: int, text: str, now: float, times: MoveTimes | None, quiet: bool = False
    ) -> bool:
        game = self.game
        try:
            move = game.parse_move(text)
        except zuni.MoveError as exc:
            out.append(say("the board sent move %d %r, which the rules refuse: %s" % (index + 1, text, exc), "error"))
            return False
        side = str(zuni.SIDE_NAMES[game.turn])
        seat = self.seat(side)
        expected = self.ai_move
        typed, self.typed = self.typed, ""
        same = typed and typed != text and not seat.is_away and same_effect(game, typed, move)
        game.push(move)
        self.moves.append(text)
        took = (times or {}).get((self.board_game, index, text))
        self.clocks.moved(side, took[1] if took else None, self.turn_side(), now)
        out.append(Played(index, text, side, took))
        self.phase = "play"
        self._new_position(out)
        if not quiet:
            note = ""
            if seat.is_away and expected == text:
                note = " (carried out on the board)"
            elif seat.is_away:
                note = " (made on the board instead of the computer's %s)" % (expected or "move")
            elif same:
                # A chain round a loop, either way: the board sees the same points
                # touched, the same pieces taken and the same position.
                note = " (the board cannot tell it from %s, which it equals: the same pieces taken)" % typed
            out.append(say("%d. %s %s%s" % (index + 1, side, text, note), "move"))
            if not seat.is_away and self.help_of(side).grades:
                limits = (("node_limit", GRADE_NODES),) if self.deterministic else (("time_limit", GRADE_TIME_S),)
                out.append(self._think("grade", side, 0, limits))
        if game.is_game_over():
            outcome = game.outcome()
            if outcome is not None:
                out += self._ended(outcome)
        return True

    def _ended(self, outcome: zuni.Outcome) -> list[Action]:
        self._new_position([])
        self.phase = "over"
        return [
            Ended(str(outcome.result), str(outcome.termination)),
            say(
                "%s. Game #%d is logged; press OK on the board or type new for a new game, quit to leave"
                % (outcome_words(self.game, outcome), self.number),
                "over",
            ),
        ]

    def _declare(self, outcome: zuni.Outcome) -> list[Action]:
        """A declared end (resignation, agreement) the board accepted."""
        out = [CANCEL] + self._ended(outcome)
        out.append(REDRAW)
        return out

    def _new_position(self, out: list[Action]) -> None:
        """The position changed: answers being thought about are for the old one."""
        self.gen += 1
        self.busy.clear()
        out.append(CANCEL)
        self.ai_move = None
        self.ai_sent = False
        self.offer = None
        self.hint_shown = False
        self.hint_table = ""
        self.hint_note = None
        self.last_wrong = ""
        self.ai_unsaid = False
        self.confirm = None
        self.show_at = None
        self.typed_ahead = None
        self.ahead_unsaid = False
        self.typed = ""

    # -- the board's reports -----------------------------------------------------------
    def board_state(self, state: dict[str, str], now: float) -> list[Action]:
        """The board's state (a reply, or what it sent on its own): its phase."""
        out: list[Action] = []
        phase = state.get("phase", "?")
        self.state_at = now + (SETUP_POLL_S if phase == "setup" else STATE_POLL_S)
        self.board_error = str(state.get("error", "")).replace("_", " ")
        fault = str(state.get("fault", ""))
        if fault != self.board_fault:
            self.board_fault = fault  # "" again after the board restarted
            if fault:
                out.append(say(supply_fault_words(fault), "board"))
        if state.get("game", self.board_game) == self.board_game:
            self.clocks.report(state, now)
            if phase == "over" and state.get("termination") == "time" and self.game is not None:
                if clock_view.apply_time_loss(self.game, state.get("result", "")):
                    out += self._time_lost()  # a flag fell, its event lost with the connection
        if self.hand and phase == "setup" and self.game is not None:
            staged = state.get("setup", "")
            if staged in zuni.SIDE_NAMES:
                # A position set up one side at a time: the sides up to the one the
                # board asks for now; then OK for the next (as a person would press it).
                upto = tuple(range(zuni.SIDE_NAMES.index(staged) + 1))
                out += [SetUp(upto), request("press_ok")]
            else:
                out.append(SetUp())
        if phase != self.phase:
            old = self.phase
            self.phase = phase
            if phase == "play" and old in ("setup", "?"):
                if old == "setup":
                    out.append(say("the board is set up: play on", "board"))
                out += self._announce_turn()
                ahead, self.typed_ahead = self.typed_ahead, None
                self.ahead_unsaid = False
                if ahead is not None and self.hand and self.game is not None and ahead in self.game.legal_moves():
                    self.typed = ahead.text()
                    out.append(MakeMove(ahead))
            elif phase == "setup":
                out.append(say("set up the pieces as the board shows (blinking points need a piece)", "board"))
        return self._said(out)

    def board_event(self, kind: str, text: str, now: float) -> list[Action]:
        """A report of the board that is not its move list: from one table."""
        handler = self._events.get(kind)
        return self._said(handler(self, text, now)) if handler is not None else []

    def _connected(self, text: str, now: float) -> list[Action]:
        self.ai_sent = False  # show the computer's move again (a reset board forgot it)
        return []

    def _restarted(self, text: str, now: float) -> list[Action]:
        self.ai_sent = False
        self.phase = "?"
        return []

    def _wrong(self, text: str, now: float) -> list[Action]:
        self.last_wrong = text
        return [say("the board: %s" % self._board_words(text), "wrong")]

    def _error(self, text: str, now: float) -> list[Action]:
        return [say("the board: %s" % self._board_words(text), "board")]

    def _over(self, text: str, now: float) -> list[Action]:
        """The board says the game is over (``result termination``)."""
        self.phase = "over"
        if self.game is None or self.game.is_game_over():
            return []  # the mirror knows already (the last move, or our own request)
        result, _, termination = text.strip().partition(" ")
        if termination == "time" and clock_view.apply_time_loss(self.game, result):
            return self._time_lost()  # a flag fell (docs/clocks.md)
        return [say("the board says the game is over: %s" % text, "board")]

    def _time_lost(self) -> list[Action]:
        outcome = self.game.outcome()
        return [CANCEL] + (self._ended(outcome) if outcome is not None else []) + [REDRAW]

    def _button(self, text: str, now: float) -> list[Action]:
        if text.strip() == "hint" and self.phase != "setup":  # a hint only means something in play
            out = self._hint()
            if not any(isinstance(a, Think) for a in out) and "hint" not in self.busy:
                out.append(request("hint", ""))  # refused: the board shows none of its own either
            return out
        return []

    def _took_back(self, text: str, now: float) -> list[Action]:
        out: list[Action] = []
        if text.strip() == "end" and self.game is not None:
            self.game.clear_agreement()
            out.append(Reopened())
            self._new_position(out)
            out.append(say("the board took back the end of the game: play on", "takeback"))
        self.phase = "setup"
        return out

    def _fault(self, text: str, now: float) -> list[Action]:
        """The board's LED supply switch cut the rail (docs/protocol.md, "Events")."""
        if text.strip() == self.board_fault:
            return []  # its state said it already
        self.board_fault = text.strip()
        return [say(supply_fault_words(text), "board")]

    _events: dict[str, Callable[[GameController, str, float], list[Action]]] = {
        "fault": _fault,
        "connected": _connected,
        "boardreset": _restarted,
        "wrong": _wrong,
        "error": _error,
        "over": _over,
        "button": _button,
        "takeback": _took_back,
    }

    def _board_words(self, text: str) -> str:
        """The board's ``missing: m6; extra: m5`` said as the rule that refused the move."""
        return text if self.game is None else board_error_words(self.game, text)

    # -- the computer ------------------------------------------------------------------
    def answer(self, post: SearchPost, now: float) -> list[Action]:
        """A search's post (``zuniboard.play.thinking``)."""
        if post.gen != self.gen:
            return []  # about a position that is gone
        out: list[Action] = []
        match post:
            case Searching(side=side, info=info):
                return [ShowProgress(side, info)]
            case Found(what="ai", side=side, move=move):
                self.busy.discard("ai")
                self.ai_move = move
                self.ai_sent = False
                out.append(ShowProgress(side))
                if self.phase != "play":
                    # Found while the board is being set up: said and shown once it is (a
                    # computer's move printed before the pieces stand is a move nobody sees).
                    self.ai_unsaid = True
                    self.send_at = now
                    return self._said(out)
                out += self._ai_says(side)
            case Found(what="hint", move=move, verdict=verdict):
                self.busy.discard("hint")
                self.hint_table = verdict  # the tables' verdict, in words
                out.append(request("hint", move))
            case Found():
                pass  # no other search finds a move
            case Graded(side=side, index=index, grade=grade):
                self.busy.discard("grade")
                out += self._graded(side, index, grade)
            case SearchFailed(side=side, why=why):
                if not why.startswith("ai"):
                    self.busy.discard("hint")  # a hint may be asked again; the computer's move is not retried
                out.append(ShowProgress(side))
                out.append(say("the computer failed (%s)" % why, "error"))
            case _:
                assert_never(post)
        return self._said(out)

    def _graded(self, side: str, index: int, grade: MoveGrade) -> list[Action]:
        """The grade of move ``index`` (``side``'s): kept for the review, said as the
        seat's help asks, and a mistake or blunder shown on the moved piece's LED."""
        if not 0 <= index < len(self.moves):
            return []
        text = self.moves[index]
        self.grades[index] = (side, text, grade)
        # Into the log with the move, whatever of it the seat's help says aloud.
        out: list[Action] = [MoveGraded(index, text, side, grade.name, grade.words)]
        if self.help_of(side).grades != "all" and not grade.is_mistake:
            return out
        out += [say("%d. %s %s: %s, %s" % (index + 1, side, text, grade.name, grade.words), "grade")]
        if grade.is_mistake and index == len(self.moves) - 1:
            move = self.game.move_stack[index]
            if move.dest >= 0:
                out.append(request("grade", grade.name, str(self.game.geometry.names[move.dest])))
        return out

    def review(self) -> Review:
        """The grades of the game so far: per side the count of each grade, and every
        move graded (the page's review after the game)."""
        counts: dict[str, dict[str, int]] = {}
        moves: list[GradedMove] = []
        for index in sorted(self.grades):
            side, text, grade = self.grades[index]
            counts.setdefault(side, dict.fromkeys(GRADES, 0))[grade.name] += 1
            moves.append(
                {
                    "index": index,
                    "side": side,
                    "move": text,
                    "grade": grade.name,
                    "words": grade.words,
                    "colour": grade.colour,
                }
            )
        return {"counts": counts, "moves": moves}

    # -- what is due -----------------------------------------------------------------
    def tick(self, now: float, connected: bool = True) -> list[Action]:
        if self.game is None or self.game.is_game_over() or not connected:
            return []
        out: list[Action] = []
        if self.phase != "play" and now >= self.state_at:
            # "?" at once and often, "setup" rarely: the board says when it is set up.
            self.state_at = now + STATE_POLL_S
            out.append(request("state"))
        side = self.turn_side()
        if side is not None and self.phase == "play":
            out += self._low_time(side, now)
        if side is None or not self.seat(side).is_away:
            return self._said(out)
        if self.ai_move is None:
            if "ai" not in self.busy and self.seat(side).is_ai:
                seat = self.seat(side)
                limits: tuple[tuple[str, float], ...] = ()
                if self.clocks.on and not self.deterministic:
                    # On a clock the computer's time comes from its clock (docs/clocks.md).
                    limits = (("time_limit", self.clocks.think_s(side, LEVEL_TIMES[seat.level], now)),)
                out += [say("%s (%s) is thinking" % (side, seat), "ai"), self._think("ai", side, seat.level, limits)]
        elif not self.ai_sent and now >= self.send_at and self.phase == "play":
            self.send_at = now + RETRY_S
            if self.ai_unsaid:
                out += self._ai_says(side)
            else:
                out.append(request("host_move", self.ai_move))
        elif self.ai_sent and self.show_at is not None and now >= self.show_at:
            self.show_at = None  # the terminal's hand makes the computer's move, once seen lit
            if self.hand:
                out.append(MakeMove(self.game.parse_move(self.ai_move)))
        return self._said(out)

    def _low_time(self, side: str, now: float) -> list[Action]:
        """A person's flag about to fall: said once a move (the board ticks its home row)."""
        clocks = self.clocks
        if not clocks.on or clocks.running != side or self.seat(side).is_ai:
            return []
        left = clocks.remaining_ms(side, now)
        if left > clocks.low_ms(side) or left <= 0 or self.low_said == (side, len(self.moves)):
            return []
        self.low_said = (side, len(self.moves))
        return [say("%s: %s left on the clock" % (side_title(side), count_words(-(-left // 1000), "second")), "clock")]

    def _ai_says(self, side: str) -> list[Action]:
        """The computer's move said, and sent to the board to show."""
        assert self.ai_move is not None
        self.ai_unsaid = False
        move = self.game.parse_move(self.ai_move)
        return [
            say("%s (%s)" % (plays_words(self.game, move), self.seat(side)), "ai"),
            request("host_move", self.ai_move),
        ]

    def _announce_turn(self) -> list[Action]:
        side = self.turn_side()
        if side is None or self.phase != "play":
            return []  # the board is being set up (or not heard from yet): it says so later
        seat = self.seat(side)
        if seat.is_remote and not self.ai_move:
            return [say("%s (%s) is to move: waiting for their move" % (side, seat.name), "ai")]
        if seat.is_away:
            if self.ai_move and self.ai_sent:
                return [say("%s (%s) waits for %s: %s" % (side, seat, self.ai_move, self._how(self.ai_move)), "ai")]
            return []
        how = "type it or make it %s" % self.moves_at if self.hand else "make it %s" % self.moves_at
        return [say("%s to move (%s; help lists the commands)" % (side, how))]

    def _how(self, text: str) -> str:
        try:
            return move_words(self.game, self.game.parse_move(text))
        except zuni.MoveError:
            return text

    # -- what the page shows ---------------------------------------------------------------
    def told(self, out: list[Action]) -> list[Action]:
        """``out``, its words kept among the last things said (a runner's own words)."""
        return self._said(out)

    def _said(self, out: list[Action]) -> list[Action]:
        for action in out:
            if isinstance(action, Say):
                self.said.append((action.tone, action.text))
                self.said_count += 1
        del self.said[:-SAID_KEPT]
        return out

    def announcements(self) -> list[list[str | bool]]:
        """What the page announces (its live region, its speech) of the last things said:
        ``[key, spoken text, cuts]`` (``speech.spoken``; ``cuts``: a move, which cuts
        short what the page is still saying); each key once, in order."""
        first = self.said_count - len(self.said)
        out: list[list[str | bool]] = []
        for i, (tone, text) in enumerate(self.said):
            said = utterance(tone, text)
            if said is not None:
                out.append(["said:%d" % (first + i), said.text, said.cuts])
        return out

    def view(self) -> GameView:
        """The game as the page shows it (the keys of ``web.world.Narrator``'s view, from
        the game itself rather than guessed from the board's reports), and what was said."""
        game = self.game
        if game is None:
            return {"controller": True, "said": [list(s) for s in self.said], "announce": self.announcements()}
        names = game.geometry.names
        out: GameView = {"controller": True, "moves": list(self.moves), "lost": False}
        out["numbered"] = numbered_moves(game, self.moves)
        out["last"] = None
        if self.moves:
            before = game.copy()
            before.pop()
            move = game.move_stack[-1]
            out["last"] = {
                "text": move.text(),
                "side": str(zuni.SIDE_NAMES[before.turn]),
                "words": plays_words(before, move).replace(" plays ", " played ", 1),
                "path": [str(names[p]) for p in move.path],
                "took": [str(names[p]) for p in move.captures],
                "from": str(names[move.origin]) if move.origin >= 0 else "",
                "to": str(names[move.dest]) if move.dest >= 0 else "",
            }
        out["disks"] = disks_of(game)  # whose disk stands where (web.world.World.settle)
        out["showing"] = ""
        out["shown"] = None
        if self.ai_move and self.ai_sent and not game.is_game_over():
            shown = game.parse_move(self.ai_move)
            out["showing"] = plays_words(game, shown)
            out["shown"] = {
                "text": shown.text(),
                "path": [str(names[p]) for p in shown.path],
                "took": [str(names[p]) for p in shown.captures],
            }
        outcome = game.outcome()
        out["result"] = outcome_words(game, outcome) if outcome is not None else ""
        side = self.turn_side()
        out["turn"] = side_title(side) if side is not None and self.phase == "play" else ""
        out["seats"] = {s: str(seat) for s, seat in self.seats.items()}
        out["number"] = self.number
        # Why the board refused the last move, in the rule's words (as the terminal says
        # it), never the board's "missing: s4; extra: m5"; the page drops it once the
        # board no longer shows the error.
        wrong = self.last_wrong or self.board_error
        if wrong:  # (else the page keeps what it read from the board's own report)
            out["refusal"] = self._board_words(wrong)
        out["said"] = [list(s) for s in self.said]
        out["announce"] = self.announcements()
        out["legal"] = sorted(m.text() for m in game.legal_moves())
        out["review"] = self.review()
        out["help"] = {
            s: {"level": self.help_of(s).name, "hints_left": self.hints_left(s) if self.help_of(s).hints else None}
            for s, seat in self.seats.items()
            if not seat.is_away
        }
        return out
