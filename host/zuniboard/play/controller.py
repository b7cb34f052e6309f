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

from typing import assert_never

from zuniboard.games.clock_view import ClockView
from zuniboard.link.mirror import start_game
from zuniboard.play.actions import CANCEL, Action, ShowProgress, say
from zuniboard.play.clock_watch import ClockWatch
from zuniboard.play.computer import RETRY_S, SHOW_AI_MOVE_S, ComputersTurn
from zuniboard.play.following import BoardFollowing, MoveTimes, same_effect
from zuniboard.play.gameview import GameView, SaidLog, game_view
from zuniboard.play.helping import HINT_LEVEL, HINT_TIME_S, Helping, Review
from zuniboard.play.offers import Offers
from zuniboard.play.prompt import Line, completions, read_line
from zuniboard.play.reports import SETUP_POLL_S, STATE_POLL_S, SUPPLY_FAULT_WORDS, BoardReports, supply_fault_words
from zuniboard.play.seats import Seat, seats_for
from zuniboard.play.state import MOVES_AT_BOARD, MOVES_AT_PAGE, GameState
from zuniboard.play.thinking import Found, Graded, SearchFailed, Searching, SearchPost
from zuniboard.play.typed_lines import TypedLines
from zuniboard.play.typed_moves import TypedMoves

__all__ = [
    "HINT_LEVEL",
    "HINT_TIME_S",
    "MOVES_AT_BOARD",
    "MOVES_AT_PAGE",
    "RETRY_S",
    "SETUP_POLL_S",
    "SHOW_AI_MOVE_S",
    "STATE_POLL_S",
    "SUPPLY_FAULT_WORDS",
    "GameController",
    "GameView",
    "MoveTimes",
    "same_effect",
    "seats_for",
    "supply_fault_words",
]


class GameController:
    """One game on the board between people and the computer (``seats``): the thin
    coordinator of its parts, each owning its state. ``state`` (``play.state``) is the
    mirrored game, its seats and phase; ``computer`` the computer's turn; ``helping`` the
    hints and grades; ``offers`` take-backs, resignations and agreements (and a remote
    game's referee); ``typed`` the typed moves; ``lines`` the typed lines; ``following``
    the board's move list; ``reports`` the board's state and events; ``watch`` the clocks.
    Every action it returns with words is kept among the last things said (``said``)."""

    def __init__(
        self,
        *,
        hand: bool = False,
        deterministic: bool = False,
        show_move_s: float = SHOW_AI_MOVE_S,
        moves_at: str = MOVES_AT_BOARD,
    ) -> None:
        self.state = state = GameState(hand=hand, deterministic=deterministic, moves_at=moves_at)
        self.said = SaidLog()
        self.watch = watch = ClockWatch(state)
        self.computer = computer = ComputersTurn(state, watch.clocks, show_move_s)
        self.helping = helping = Helping(state)
        self.offers = offers = Offers(state)
        self.typed = typed = TypedMoves(state)
        self.lines = TypedLines(state, helping, offers, typed, watch)
        self.following = BoardFollowing(state, computer, helping, typed, watch)
        self.reports = BoardReports(state, computer, helping, typed, watch)

    # -- what it is ------------------------------------------------------------------
    @property
    def moves(self) -> list[str]:
        return self.state.moves

    @property
    def seats(self) -> dict[str, Seat]:
        return self.state.seats

    @property
    def phase(self) -> str:
        """The board's phase: setup, play, over ("?" not known yet)."""
        return self.state.phase

    @property
    def number(self) -> int:
        """The game's number in the log (said to the player)."""
        return self.state.number

    @number.setter
    def number(self, number: int) -> None:
        self.state.number = number

    @property
    def gen(self) -> int:
        """The position's generation: answers for older positions are dropped."""
        return self.state.gen

    @property
    def quit(self) -> bool:
        return self.lines.quit

    @property
    def clocks(self) -> ClockView:
        """The game's clocks as the board reports them (docs/clocks.md); off without."""
        return self.watch.clocks

    def turn_side(self) -> str | None:
        return self.state.turn_side()

    def is_over(self) -> bool:
        return self.state.is_over()

    def human_side(self) -> str | None:
        return self.state.human_side()

    def help_logged(self) -> dict[str, str]:
        return self.helping.help_logged()

    def review(self) -> Review:
        return self.helping.review()

    def seats_text(self) -> str:
        return ", ".join("%s %s" % (s, seat) for s, seat in self.state.seats.items())

    def read(self, text: str) -> Line:
        """What a typed ``text`` means now (``commands.Line``): a move, a command or why neither."""
        return read_line(text, self.state.game)

    def completions(self) -> list[str]:
        """What Tab offers now: the legal moves, then the command words."""
        return completions(self.state.game)

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
        game = self.state
        game.seats = dict(seats)
        game.board_game = board_game
        game.ruleset = ruleset
        game.position = position
        game.number = number
        game.game = start_game(ruleset, position)
        game.moves = []
        self.helping.new_game()
        self.following.deferred = False
        self.watch.clocks.report(state or {}, now)
        game.new_position(out)
        for i, text in enumerate(moves):
            if not self.following.apply(out, i, text, now, times, quiet=True):
                break
        game.phase = "?"
        self.reports.state_at = now
        return out

    def shown_on_resume(self, hostmove: str, now: float) -> None:
        """Resumed while the board still shows the computer's move ``hostmove``: keep it."""
        self.computer.shown_on_resume(hostmove, now)

    def seats_for_board_game(self, ruleset: str, players: dict[str, str | None]) -> dict[str, Seat]:
        """The seats of a game the board started on its own: the seats now, if they fit."""
        if self.state.seats == {} or set(self.state.seats) != set(seats_for(ruleset, {})):
            return seats_for(ruleset, players)
        return self.state.seats

    # -- events in ---------------------------------------------------------------------
    def line(self, text: str, now: float, where: str = "terminal") -> list[Action]:
        """A line typed by a person at the ``terminal`` (or a test) or on the ``page``."""
        return self.told(self.lines.line(text, now, where))

    def answer(self, post: SearchPost, now: float) -> list[Action]:
        """A search's post (``zuniboard.play.thinking``)."""
        if post.gen != self.state.gen:
            return []  # about a position that is gone
        out: list[Action] = []
        match post:
            case Searching(side=side, info=info):
                return [ShowProgress(side, info)]
            case Found(what="ai", side=side, move=move):
                out += self.computer.found(side, move, now)
            case Found(what="hint", move=move, verdict=verdict):
                out += self.helping.found(move, verdict)
            case Found():
                pass  # no other search finds a move
            case Graded(side=side, index=index, grade=grade):
                out += self.helping.graded(side, index, grade)
            case SearchFailed(side=side, why=why):
                if not why.startswith("ai"):
                    self.state.busy.discard("hint")  # a hint may be asked again; the computer's move is not retried
                out.append(ShowProgress(side))
                out.append(say("the computer failed (%s)" % why, "error"))
            case _:
                assert_never(post)
        return self.told(out)

    def judged(self, what: str, offered_by: str, answer: str, now: float) -> list[Action]:
        """The computer's word on ``what`` offered by ``offered_by`` (``judge.verdict``:
        '' it agrees, else why not)."""
        return self.told(self.offers.judged(what, offered_by, answer))

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
        if name == "host_move":
            return self.told(self.computer.replied(now, error, by_board))
        if name == "state":
            return self.told(self.reports.replied(now, error, reply))
        if name == "hint":
            return self.told(self.helping.replied(args, error, by_board))
        if name in ("take_back", "resign", "agree"):
            return self.told(self.offers.replied(name, args, error, by_board))
        return []

    def board_moves(
        self, game_id: str, moves: list[str], synced: bool, now: float, times: MoveTimes | None = None
    ) -> list[Action]:
        """The board's game and move list as the link knows them now (``following.board_moves``)."""
        return self.told(self.following.board_moves(game_id, moves, synced, now, times))

    def board_state(self, state: dict[str, str], now: float) -> list[Action]:
        """The board's state (a reply, or what it sent on its own): its phase."""
        return self.told(self.reports.board_state(state, now))

    def board_event(self, kind: str, text: str, now: float) -> list[Action]:
        """A report of the board that is not its move list."""
        return self.told(self.reports.board_event(kind, text, now))

    # -- a remote game: the referee's word ------------------------------------------------
    def remote_move(self, text: str, now: float) -> list[Action]:
        """A remote player's move, as the referee took it (``computer.remote_move``)."""
        return self.told(self.computer.remote_move(text, now))

    def offered(self, what: str, by: str) -> list[Action]:
        """A remote player offers ``what`` (takeback, draw, count): we answer yes or no."""
        return self.told(self.offers.offered(what, by))

    def offer_closed(self, note: str) -> list[Action]:
        """The offer asked about is gone (answered, declined, or a move made)."""
        return self.told(self.offers.offer_closed(note))

    def declared(self, result: str, termination: str) -> list[Action]:
        """The referee ended the game by a declaration (``offers.declared``)."""
        return self.told(self.offers.declared(result, termination))

    # -- what is due -----------------------------------------------------------------
    def tick(self, now: float, connected: bool = True) -> list[Action]:
        state = self.state
        if state.game is None or state.game.is_game_over() or not connected:
            return []
        out = self.reports.poll(now)
        side = state.turn_side()
        if side is not None and state.phase == "play":
            out += self.watch.low_time(side, now)
        if side is not None and state.seat(side).is_away:
            out += self.computer.tick(side, now)
        return self.told(out)

    # -- what the page shows ---------------------------------------------------------------
    def told(self, out: list[Action]) -> list[Action]:
        """``out``, its words kept among the last things said (a runner's own words too)."""
        return self.said.keep(out)

    def announcements(self) -> list[list[str | bool]]:
        """What the page announces of the last things said (``SaidLog.announcements``)."""
        return self.said.announcements()

    def view(self) -> GameView:
        """The game as the page shows it (``gameview.game_view``), and what was said."""
        return game_view(
            self.state,
            self.said,
            showing=self.computer.showing(),
            refusal=self.reports.refusal(),
            review=self.helping.review(),
            seat_help=self.helping.seat_help(),
        )
