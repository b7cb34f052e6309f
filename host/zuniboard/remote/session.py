"""A remote game at this board: ``RemoteSession``, the play session with a seat in a
remote game (docs/remote.md).

It is ``play.session.PlaySession`` (the board, the log, the terminal and the page as for
any game) with the referee's connection: every pump hands the broker's messages to the
seat's ``SeatClient`` and the referee's state to the ``Bridge``, which has the
controller show the remote players' moves on the board; a move made here goes to the
referee; the commands that need the others' word (undo, draw, count, resign, claim)
become the controller's ``referee`` actions, sent from here. The seat's record is saved
after every change, so that a PC killed mid-game goes on with `zuni play --remote CODE`.

``on_view`` (the page's, in `zuni play`) is given ``view()`` whenever it changes: the
invite code, the seats with their names and presence, the open offer, who is gone.
"""

from __future__ import annotations

import json
import queue
from collections.abc import Callable
from pathlib import Path
from typing import Any, assert_never

import zuni
from zuniboard.play.actions import Cut, Played, Referee
from zuniboard.play.session import PlaySession
from zuniboard.remote.bridge import Bridge
from zuniboard.remote.protocol import HERE
from zuniboard.remote.seat_client import SeatClient, save_seat
from zuniboard.remote.transport import BrokerConnected, BrokerDisconnected, BrokerMessage, Connection


class RemoteSession(PlaySession):
    def __init__(
        self,
        *args: Any,
        remote: tuple[Connection, SeatClient, Path, str],
        on_view: Callable[[dict[str, Any]], None] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.on_view = on_view
        self.shown_view: dict[str, Any] | None = None
        self.connection, self.client, self.seat_file, self.client_id = remote
        self.bridge = Bridge(self.client.creds.seat)
        self.control.offers.remote = True
        self.openings.remote = True  # it goes on with remote games only, a local session never
        self.followed = -1  # the referee's sequence number followed last
        self.sent: dict[int, int] = {}  # ply -> the counter of the move message sent for it
        self.presence: dict[str, bool] = {}  # the other seats' connections as their presence says
        self.connection.wake = self.wake  # a broker's message is handled as it comes

    # -- the loop --------------------------------------------------------------------------
    def pump(self, timeout: float = 0.05) -> None:
        self.pump_remote()
        super().pump(timeout)

    def pump_remote(self) -> None:
        now = self.now()
        changed = False
        while True:
            try:
                event = self.connection.events.get_nowait()
            except queue.Empty:
                break
            match event:
                case BrokerMessage(topic, payload) if "/seen/" in topic:
                    self._presence(topic.rsplit("/", 1)[1], payload)
                case BrokerMessage(payload=payload):
                    if self.client.take_state(payload) is not None:
                        changed = True
                case BrokerConnected(url):
                    self.ui.message("link", "connected to the referee's broker (%s)" % url)
                    creds = self.client.creds
                    self._publish([(self.client.topics.seen(creds.game, creds.seat), HERE)], retain=True)
                    self._publish(self.client.resync(now))
                case BrokerDisconnected(why):
                    self.ui.message("link", "the broker connection dropped (%s): trying again" % why)
                case _:
                    assert_never(event)
        self._publish(self.client.tick(now))
        if changed:
            self.follow(now)
            save_seat(self.seat_file, self.client, self.client_id)
        if self.on_view is not None:
            view = self.view()
            if view != self.shown_view:
                self.shown_view = view
                self.on_view(view)

    def view(self) -> dict[str, Any]:
        """The remote game as the page shows it (JSON data): ``code`` (as people type
        it), ``seat`` (this board's), ``seats`` (seat, name, joined, ``here``: its
        connection as its presence says, None: not heard of; ``gone``: the referee counts
        it gone), ``offer`` (what, by, and whether this seat is asked), ``note`` (the
        referee's last word), ``result``."""
        state = self.client.state
        mine = self.client.creds.seat
        gone = list(state.get("gone") or [])
        seats = [
            {
                "seat": side,
                "name": str(info.get("name", "")),
                "joined": bool(info.get("joined")),
                "here": True if side == mine else self.presence.get(side),
                "gone": side in gone,
            }
            for side, info in dict(state.get("seats") or {}).items()
        ]
        offer = state.get("offer")
        code = self.client.creds.code.upper()
        return {
            "code": code[:3] + "-" + code[3:],
            "seat": mine,
            "seats": seats,
            "offer": None
            if not offer
            else {
                "what": str(offer.get("what")),
                "by": str(offer.get("by")),
                "asked": offer.get("by") != mine and mine not in (offer.get("yes") or []),
            },
            "note": str(state.get("note", "")),
            "result": str(state.get("result", "")),
        }

    def follow(self, now: float) -> None:
        if self.control.state.game is None:
            return
        self._send_unsent(now)
        refused = dict(self.client.state.get("refused", {}).get(self.client.creds.seat) or {})
        refused_ply = next((ply for ply, n in self.sent.items() if n == refused.get("n")), -1)
        self.followed = self.client.seq
        self._do(self.bridge.follow(self.client.state, self.control, now, refused_ply), now)

    def _send_unsent(self, now: float) -> None:
        """A move of ours the board has and the referee has not, with no message on the
        way, now that the referee has every move before it: one played ahead of the
        referee (after another seat's forced pass it had not had yet), or one made while
        this PC was stopped between the board's commit and the send. Send it."""
        theirs = list(self.client.state.get("moves", []))
        ours = self.control.moves
        k = len(theirs)
        if len(ours) <= k or ours[:k] != theirs or k in self.sent:
            return
        if any(body.get("ply") == k for body in self.client.in_flight("move")):
            return
        game = self.control.state.game.copy()
        while len(game.move_stack) > k:
            game.pop()
        if str(zuni.SIDE_NAMES[game.turn]) == self.client.creds.seat:
            self._publish([self.client.move(k, ours[k], now)])
            self.sent[k] = self.client.n

    def _publish(self, messages: list[tuple[str, bytes]], retain: bool = False) -> None:
        for topic, payload in messages:
            self.connection.publish(topic, payload, retain)

    def _presence(self, seat: str, payload: bytes) -> None:
        """Another seat's connection came or went (its last will): said at once, so that
        a player knows before the referee counts the seat gone. Only words: a claim
        needs the referee's count (anyone may publish here)."""
        if seat == self.client.creds.seat or seat not in self.seats:
            return
        try:
            here = json.loads(payload).get("here")
        except (ValueError, AttributeError):
            return
        was = self.presence.get(seat)
        self.presence[seat] = here is True
        name = self.seats[seat].name or seat
        if here is False and was is not False:
            self.ui.message("link", "%s (%s): connection lost; the game waits for them" % (seat, name))
        elif here is True and was is False:
            self.ui.message("link", "%s (%s) is connected again" % (seat, name))

    # -- the controller's actions ------------------------------------------------------
    def _played(self, action: Played, now: float) -> None:
        super()._played(action, now)
        if self.bridge.to_send(action.index, action.side, self.control.moves, self.client.state):
            self._publish([self.client.move(action.index, action.text, now)])
            self.sent[action.index] = self.client.n
            save_seat(self.seat_file, self.client, self.client_id)
        elif action.side == self.client.creds.seat:
            # Ahead of the referee (another seat's forced pass, committed here, has not
            # reached it yet): ``follow`` sends it once the referee's state has caught up.
            self.sent.pop(action.index, None)

    def _cut(self, action: Cut, now: float) -> None:
        super()._cut(action, now)
        self.follow(now)  # down to the referee's moves: its next move, if any

    def _referee(self, action: Referee, now: float) -> None:
        fields: dict[str, Any] = {}
        if action.what in ("offer", "claim"):
            fields["what"] = action.args[0]
        elif action.what == "answer":
            fields["what"] = action.args[0]
            fields["yes"] = action.args[1] == "yes"
        self._publish([self.client.send(action.what, now, **fields)])
        save_seat(self.seat_file, self.client, self.client_id)

    def _new(self, now: float) -> None:
        self.ui.message("info", "a new remote game: quit, then `zuni play --remote new` (or join with a code)")
