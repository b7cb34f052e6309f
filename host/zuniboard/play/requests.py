"""The game controller's requests on the board link: ``ControllerRequests``.

A request (``actions.Request``) is begun on the link without waiting; its result comes
back through the session's inbox (a ``RequestResult``) and is handed to the controller
(``GameController.replied``). The same request is not begun again while it is on its way
(the controller asks again on a timer), an answer about a position that is gone (the
computer's move, a hint: the move was made meanwhile) is dropped, and a take-back of
several moves is asked one move at a time. Part of ``session.PlaySession``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import assert_never

from zuniboard.link.client import BoardLink
from zuniboard.link.events import Answered, Failed, Refused, RequestResult
from zuniboard.play.actions import Action, Request
from zuniboard.play.controller import GameController


class ControllerRequests:
    """The requests of ``control`` on ``link`` (results posted to ``post``)."""

    def __init__(
        self, link: BoardLink, control: GameController, post: Callable[[RequestResult], None], timeout: float
    ) -> None:
        self.link = link
        self.control = control
        self.post = post
        self.timeout = timeout
        self.take_backs_left = 0  # of the controller's take_back request: one at a time
        # Requests on their way -> the position generation they were asked in: the same
        # request is not asked again while it is (the controller asks again on a timer),
        # and a computer's move or hint answered for a position that is gone is dropped.
        self.in_flight: dict[tuple[str, tuple[str, ...]], int] = {}

    def begin(self, action: Request, now: float) -> None:
        """Begins the controller's request on the link; its result comes to ``post``."""
        name, args = action.name, action.args
        if name == "take_back":  # args: how many moves, taken back one after the other
            self.take_backs_left = int(args[0])
            self._begin("take_back", (), now)
        else:
            self._begin(name, tuple(args), now)

    def _begin(self, call: str, args: tuple[str, ...], now: float) -> None:
        if (call, args) in self.in_flight:
            return  # still on its way: its result answers this ask too
        self.in_flight[(call, args)] = self.control.gen
        self.link.begin(call, args, now, self.post, timeout=self.timeout)

    def replied(self, result: RequestResult, now: float) -> list[Action]:
        """A request's result, as the controller hears it: what it does then."""
        name, args = result.call, result.args
        control = self.control
        gen = self.in_flight.pop((name, args), control.gen)
        if name in ("host_move", "hint") and any(args) and gen != control.gen:
            return []  # about a position that is gone (the move was made meanwhile)
        if name == "take_back":
            self.take_backs_left -= 1
            if isinstance(result, Answered) and self.take_backs_left > 0:
                self._begin("take_back", (), now)
                return []
            args = ("1",)
        match result:
            case Answered(fields=fields):
                if name == "state" and self.link.info:
                    # The board's freshest state: a state it sent on its own after this
                    # reply (setup done, a take-back) is newer than the reply.
                    fields = dict(self.link.info)
                return control.replied(name, args, now, reply=fields)
            case Refused(message=message):
                return control.replied(name, args, now, error=message, by_board=True)
            case Failed(why=why):
                return control.replied(name, args, now, error=why)
            case _:
                assert_never(result)
