"""Lines a person types in ``zuni play``, at the terminal or on the page: ``TypedLines``.

A line is a move, a command (dispatched from one table; ``prompt.COMMANDS`` names them)
or the answer to a question: a command that ends the game is asked about first, and in
a remote game the others' offer waits for our yes or no. Part of
``controller.GameController``.
"""

from __future__ import annotations

from collections.abc import Callable

from zuniboard.games.words import MARKS_HELP, piece_moves_words, plays_words, position_words
from zuniboard.play.actions import REDRAW, Action, NewGame, Quit, say
from zuniboard.play.clock_watch import ClockWatch
from zuniboard.play.helping import Helping
from zuniboard.play.offers import Offers
from zuniboard.play.prompt import COMMANDS, CONFIRM, NO, YES, help_text, read_line
from zuniboard.play.state import GameState
from zuniboard.play.typed_moves import TypedMoves


class TypedLines:
    """The typed lines of the game of ``state``, done by its parts."""

    def __init__(
        self, state: GameState, helping: Helping, offers: Offers, typed: TypedMoves, watch: ClockWatch
    ) -> None:
        self.state = state
        self.offers = offers
        self.typed = typed
        self.watch = watch
        self.quit = False
        self.confirm: str | None = None  # a command that ends the game, asked about
        self.arg = ""  # what followed the command being done (``moves m5``: m5)
        # One table: command name -> handler (``prompt.COMMANDS`` lists them for help).
        self.commands: dict[str, Callable[[str, float], list[Action]]] = {
            "hint": lambda name, now: helping.hint(),
            "undo": lambda name, now: offers.take_back(),
            "resign": lambda name, now: offers.resign(),
            "draw": lambda name, now: offers.agree(name),
            "count": lambda name, now: offers.agree(name),
            "claim": lambda name, now: offers.claim(),
            "new": lambda name, now: self._new(),
            "board": lambda name, now: [REDRAW, say(MARKS_HELP)],
            "where": lambda name, now: self._where(now),
            "moves": lambda name, now: self._piece_moves(),
            "last": lambda name, now: self._last(),
            "help": lambda name, now: [say(help_text(state.hand))],
            "quit": lambda name, now: self._quit(),
        }
        assert set(self.commands) == set(COMMANDS), "every command has one handler"
        state.on_new_position(self.forget)

    def forget(self) -> None:
        self.confirm = None

    def line(self, text: str, now: float, where: str = "terminal") -> list[Action]:
        """A line typed by a person at the ``terminal`` (or a test) or on the ``page``."""
        word = text.strip()
        if not word:
            return []
        out: list[Action] = []
        if self.offers.asked is not None and word.lower() in YES | NO:
            return self.offers.answer(word.lower() in YES)
        if self.confirm is not None:
            what, self.confirm = self.confirm, None
            if word.lower() in YES:
                return self.commands[what](what, now)
            out.append(say("%s: not done" % what))
            if word.lower() in ("n", "no"):
                return out
        read = read_line(word, self.state.game)
        if read.command == "quit" and where == "page":
            # The page cannot start `zuni play` again: leaving is the terminal's.
            out.append(say("quit: type it at the terminal (the page stays with the game until then)", "wrong"))
        elif read.command:
            self.arg = read.arg
            out += self._command(read.command, now)
        elif read.move is not None:
            out += self.typed.move(read.text, read.move)
        else:
            out.append(say(read.error, "wrong"))
        return out

    def _command(self, name: str, now: float) -> list[Action]:
        if name == "claim" and not self.offers.remote:
            return self.offers.claim()  # says it is for remote games
        if name in CONFIRM:
            question = self.offers.question(name)
            if not question:
                why = "the game is over" if self.state.is_over() else "no person plays in this game"
                return [say("%s: %s" % (name, why))]
            self.confirm = name
            return [say(question + " (yes/no)", "ask")]
        return self.commands[name](name, now)

    # -- questions: where, moves, last -------------------------------------------------------
    def _where(self, now: float) -> list[Action]:
        if self.state.game is None:
            return [say("where: no game yet", "answer")]
        return [say(position_words(self.state.game, self.watch.text(now)), "answer")]

    def _piece_moves(self) -> list[Action]:
        if not self.arg:
            return [say("moves: name a point, e.g. moves m5", "wrong")]
        if self.state.game is None:
            return [say("moves: no game yet", "answer")]
        return [say(piece_moves_words(self.state.game, self.arg), "answer")]

    def _last(self) -> list[Action]:
        game = self.state.game
        if game is None or not self.state.moves:
            return [say("no move yet", "answer")]
        before = game.copy()
        before.pop()
        words = plays_words(before, game.move_stack[-1]).replace(" plays ", " played ", 1)
        return [say("%d. %s" % (len(self.state.moves), words), "answer")]

    def _quit(self) -> list[Action]:
        self.quit = True
        return [Quit()]

    def _new(self) -> list[Action]:
        if not self.state.is_over():
            return [say("the game is not over: finish it, or resign, draw or count first")]
        return [NewGame()]
