"""Starting or joining a remote game from the page of a plain `zuni play`: ``PageLobby``
(docs/remote.md, "From the page").

The page's "Play someone remotely" box sends ``{"do": "new", "name", "ruleset",
"clock"}`` or ``{"do": "join", "name", "code"}`` (``POST /api/remote``). ``request``
checks it at once (a bad code or ruleset is refused in words and changes nothing) and
hands the lobby's slow part, ``take_seat`` and ``wait_for_seats`` (seconds: the broker,
the referee, the others joining), to a thread of its own, so that the page's server and
the game on the board never wait for it. What it is doing shows on the page as
``remote_lobby`` (``view``): the invite code once the seat is taken, who has joined, or
why it failed. When every seat is taken, ``seated`` is set and `zuni play` switches
its board to the remote game (the same ``RemoteSession`` as `zuni play --remote`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import zuni
from zuniboard.games.clock_view import check_clock
from zuniboard.remote import protocol
from zuniboard.remote.broker import BrokerError
from zuniboard.remote.lobby import LOCAL_URL, LobbyError, Seated, take_seat, wait_for_seats

NAME_MAX = 40  # characters of a player's name


class LobbyRequestError(ValueError):
    """A page's request refused as it stands: a bad code, ruleset, clock or name."""


class LobbyBusy(RuntimeError):
    """A request that does not fit what the lobby does now: one while a remote game is
    already being started or joined, a Cancel with nothing to cancel."""


class PageLobby:
    def __init__(
        self,
        *,
        broker: str | None,
        name: str,
        ruleset: str,
        publish: Callable[[dict[str, Any] | None], None],
        fits: Callable[[str], bool],
    ) -> None:
        """``publish``: shows the lobby's view on the page; ``fits``: whether a ruleset
        plays on this board (the virtual board's layout)."""
        self.broker = broker
        self.publish = publish
        self.fits = fits
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None
        self.stopping = threading.Event()
        self.giving_up = threading.Event()  # the page's Cancel, while it waits for the others
        self.ready = threading.Event()
        self.seated: Seated | None = None
        self.state: dict[str, Any] = {
            "state": "idle",  # idle, asking (the broker and referee), waiting (for the others), ready
            "name": name,
            "ruleset": ruleset,
            "broker": broker or LOCAL_URL,
            "code": "",
            "invite": "",
            "joined": [],
            "said": "",
            "error": "",
        }
        self.publish(dict(self.state))

    def view(self) -> dict[str, Any]:
        with self.lock:
            return dict(self.state)

    def _set(self, **fields: Any) -> None:
        with self.lock:
            self.state.update(fields)
            view = dict(self.state)
        self.publish(view)

    # -- the page's request (the HTTP thread) ------------------------------------------
    def request(self, body: dict[str, object]) -> dict[str, Any]:
        do = body.get("do")
        if do == "cancel":
            return self.cancel()
        if do not in ("new", "join"):
            raise LobbyRequestError("remote: 'do' must be 'new', 'join' or 'cancel', not %r" % (do,))
        name = str(body.get("name") or "").strip()
        if not name or len(name) > NAME_MAX or not name.isprintable():
            raise LobbyRequestError("your name %r: 1 to %d printable characters" % (name, NAME_MAX))
        ruleset = clock = ""
        if do == "new":
            ruleset = str(body.get("ruleset") or self.state["ruleset"]).strip()
            try:
                ruleset = str(zuni.parse_ruleset(ruleset))
            except (zuni.RulesetError, ValueError) as exc:
                raise LobbyRequestError("ruleset %r: %s" % (ruleset, exc)) from None
            if not self.fits(ruleset):
                raise LobbyRequestError(
                    "ruleset %s needs another board than this one: quit and type `zuni play --remote new --ruleset"
                    ' "%s"`' % (ruleset, ruleset)
                )
            text = str(body.get("clock") or "").strip()
            if text:
                try:
                    clock = check_clock(text, ruleset)
                except ValueError as exc:
                    raise LobbyRequestError("clock %r: %s" % (text, exc)) from None
            code = "new"
        else:
            raw = str(body.get("code") or "")
            try:
                code = protocol.normal_code(raw)
            except protocol.ProtocolError as exc:
                raise LobbyRequestError(str(exc)) from None  # (it names the code typed)
        with self.lock:
            if (self.thread is not None and self.thread.is_alive()) or self.seated is not None:
                raise LobbyBusy("a remote game is already being %s" % ("started" if code == "new" else "joined"))
            self.state.update(
                state="asking", name=name, code="", invite="", joined=[], error="", said="asking the referee…"
            )
            self.giving_up = threading.Event()
            self.thread = threading.Thread(
                target=self._work, args=(code, name, ruleset, clock), name="zuni-page-lobby", daemon=True
            )
            self.thread.start()
        self.publish(self.view())
        return {"ok": True}

    # -- the lobby (its own thread) ----------------------------------------------------
    def _work(self, code: str, name: str, ruleset: str, clock: str) -> None:
        try:
            seated = take_seat(code, broker=self.broker, say=self._said, name=name, ruleset=ruleset, clock=clock)
        except (LobbyError, BrokerError, OSError) as exc:
            self._set(state="idle", said="", error=str(exc))
            return
        creds = seated.client.creds
        pretty = creds.code.upper()[:3] + "-" + creds.code.upper()[3:]
        self._set(state="waiting", code=pretty, invite=seated.invite, said="waiting for every seat to be taken")
        joined: list[str] = []

        def said(text: str) -> None:
            joined.append(text)
            self._set(joined=list(joined))

        giving_up = self.giving_up
        try:
            wait_for_seats(seated, said, lambda: self.stopping.is_set() or giving_up.is_set())
        except KeyboardInterrupt:  # `zuni play` ends, or the page's Cancel
            seated.close()
            self._set(
                state="idle",
                code="",
                invite="",
                joined=[],
                error="",
                said="gave up waiting for game %s; `zuni play --remote %s` goes on with your seat" % (pretty, pretty),
            )
            return
        game_ruleset = str(seated.client.state.get("ruleset", ruleset or ""))
        if game_ruleset and not self.fits(game_ruleset):
            seated.close()
            self._set(
                state="idle",
                said="",
                error="game %s is %s, which needs another board than this one: your seat is kept on this computer;"
                " quit and type `zuni play --remote %s%s` to play it"
                % (pretty, game_ruleset, pretty, "" if self.broker is None else " --broker %s" % self.broker),
            )
            return
        with self.lock:
            self.seated = seated
            self.state.update(state="ready", said="every seat is taken: the game starts")
        self.publish(self.view())
        self.ready.set()

    def cancel(self) -> dict[str, Any]:
        """The page's Cancel: stop waiting for the others (the seat stays saved here)."""
        with self.lock:
            if self.state["state"] != "waiting":
                raise LobbyBusy("remote: nothing to cancel (%s)" % self.state["state"])
            self.giving_up.set()
        return {"ok": True}

    def _said(self, text: str) -> None:
        self._set(said=text)

    def stop(self) -> None:
        """Gives up a lobby still waiting (its seat stays saved); the seated game is its
        player's to close."""
        self.stopping.set()
        thread = self.thread
        if thread is not None:
            thread.join(5.0)
