"""Between a remote game's referee and the game controller: ``Bridge``. Pure.

``follow(state, control, now)`` makes the controller follow the referee's latest state:
a move of a remote seat is shown on the board for the player here to carry out (the
controller's ``remote_move``, exactly as the computer's move); a take-back the others
agreed is asked of the board; an offer is asked about; an end the referee declared
(resignation, agreement, a flag, a claim) ends the game here too; the clocks shown are
the referee's; a seat gone is said once. ``to_send(index, side, ours, state)`` says
whether a move played on the board here is the one the referee waits for (then the
runner sends it; a move ahead of the referee's list waits for it).
"""

from __future__ import annotations

from typing import Any

from zuniboard.games.clock_view import SIDES
from zuniboard.play.actions import Action, request, say
from zuniboard.play.controller import GameController
from zuniboard.play.gamelog import common_prefix


class Bridge:
    def __init__(self, seat: str) -> None:
        self.seat = seat  # the seat played at this board
        self.taking_back_to = -1  # a take-back asked of the board: down to this many moves
        self.note = ""
        self.gone: list[str] = []
        self.refused_n = 0
        self.high = 0  # the longest move list the referee has had since we were in step

    def follow(self, state: dict[str, Any], control: GameController, now: float, refused_ply: int = -1) -> list[Action]:
        """``refused_ply``: the ply of a move of ours the referee refused (-1: none)."""
        if control.state.game is None or not state:
            return []
        out: list[Action] = []
        out += self._clocks(state, control, now)
        out += self._words(state, control)
        theirs: list[str] = list(state.get("moves", []))
        ours = control.moves
        k = common_prefix(ours, theirs)
        if len(ours) <= len(theirs):
            self.high = len(theirs)  # in step (or behind): the referee's list as it is now
        else:
            self.high = max(self.high, len(theirs))
        if len(ours) > k:
            if len(theirs) == k and self.high <= k and refused_ply != k:
                # Ahead of the referee: our move on its way, or a forced pass this board
                # made for a remote seat whose own board sends it. (A referee whose list
                # was longer before took moves back.)
                return out
            if self.taking_back_to != k:
                self.taking_back_to = k
                why = "the referee took back %d move%s" % (len(ours) - k, "" if len(ours) - k == 1 else "s")
                if len(theirs) == k and refused_ply == k:
                    refused = dict(state.get("refused", {}).get(self.seat) or {})
                    why = "the referee refused %s: %s" % (ours[k], refused.get("why", "?"))
                out += [
                    say(why + "; take them back on the board", "takeback"),
                    request("take_back", str(len(ours) - k)),
                ]
            return out
        self.taking_back_to = -1
        if len(theirs) > len(ours):
            out += control.remote_move(theirs[len(ours)], now)
        if state.get("result") and not control.is_over():
            out += control.declared(str(state["result"]), str(state.get("termination", "")))
        return out

    def _clocks(self, state: dict[str, Any], control: GameController, now: float) -> list[Action]:
        if not state.get("clock"):
            return []
        left = dict(state.get("left") or {})
        report = {
            "tc": str(state["clock"]),
            "clock": ",".join(str(left[s]) if s in left else "-" for s in SIDES),
            "running": str(state.get("running") or "-"),
        }
        control.clocks.report(report, now)
        return []

    def _words(self, state: dict[str, Any], control: GameController) -> list[Action]:
        # The controller keeps the words of its own actions among the last things said
        # (the page lists them); only the bridge's own go through ``told``, once.
        asked: list[Action] = []
        offer = state.get("offer")
        if offer and offer.get("by") != self.seat and self.seat not in offer.get("yes", []):
            asked = control.offered(str(offer["what"]), str(offer["by"]))
        elif control.offers.asked is not None and not offer:
            asked = control.offer_closed("")
        out: list[Action] = []
        note = str(state.get("note", ""))
        if note and note != self.note:
            out.append(say("referee: %s" % note, "board"))
        self.note = note
        gone = [s for s in state.get("gone", []) if s != self.seat]
        if gone != self.gone:
            self.gone = gone
            control.offers.gone = gone
            if gone:
                out.append(
                    say(
                        "%s gone for %s s: type claim for the win, draw for a draw, or wait"
                        % ("/".join(gone), state.get("gone_s", "?")),
                        "ask",
                    )
                )
            else:
                out.append(say("everybody is back", "board"))
        refused = dict(state.get("refused", {}).get(self.seat) or {})
        if refused and refused.get("n", 0) > self.refused_n:
            self.refused_n = int(refused["n"])
            out.append(say("the referee refused: %s" % refused.get("why", "?"), "wrong"))
        return asked + control.told(out)

    def to_send(self, index: int, side: str, ours: list[str], state: dict[str, Any]) -> bool:
        """A move of this board's seat played here at ``index`` (``ours``: the board's
        moves), to send now: the referee has every move before it and not this one.

        Not before: this board commits the other seats' forced passes itself, and the
        pass of the seat before ours may not have reached the referee yet (the seats'
        messages travel apart, in no order between them). The referee refuses a move
        for a ply it has not reached, and the refusal took this board's move back;
        ``RemoteSession`` sends it once the referee's state has the moves before it."""
        theirs = list(state.get("moves", []))
        return side == self.seat and len(theirs) == index and ours[:index] == theirs
