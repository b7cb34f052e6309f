"""The page's lobby (``remote.page_lobby.PageLobby``, docs/remote.md "From the page")
against a real Mosquitto and referee: a new game and a join reach every seat; a bad
request is refused at once and starts nothing; a broker down and a broker with no
referee are said in words, and the lobby can be asked again."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from remote_net import WAIT_S, Mosquitto, RefereeThread, free_port, wait_for

from zuniboard.remote.page_lobby import LobbyBusy, LobbyRequestError, PageLobby


class Views:
    """What the lobby showed on the page, in order (from its thread and the caller's)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seen: list[dict[str, Any]] = []

    def __call__(self, view: dict[str, Any] | None) -> None:
        assert view is not None
        with self.lock:
            self.seen.append(dict(view))

    @property
    def last(self) -> dict[str, Any]:
        with self.lock:
            return self.seen[-1]


@pytest.fixture(autouse=True)
def remote_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZUNI_REMOTE_DIR", str(tmp_path / "remote"))


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    home = tmp_path / "broker"
    home.mkdir()
    mosquitto = Mosquitto(home).start()
    yield mosquitto
    mosquitto.stop()


def lobby(broker: str, views: Views, name: str = "Ann") -> PageLobby:
    return PageLobby(broker=broker, name=name, ruleset="mosona", publish=views, fits=lambda r: "kolowis" not in r)


def test_new_and_join_from_two_pages(broker: Mosquitto, tmp_path: Path) -> None:
    referee = RefereeThread(broker.url, tmp_path / "referee").start()
    made, joined = Views(), Views()
    a, b = lobby(broker.url, made), lobby(broker.url, joined, "Bea")
    try:
        assert a.request({"do": "new", "name": "Ann", "ruleset": "mosona", "clock": "5+3"}) == {"ok": True}
        with pytest.raises(LobbyBusy, match="already being started"):
            a.request({"do": "new", "name": "Ann"})
        wait_for("the invite code", lambda: made.last["state"] == "waiting" and made.last["code"])
        code = made.last["code"]
        assert made.last["invite"] == "zuni play --remote %s --broker %s" % (code, broker.url)
        wait_for("the maker's seat", lambda: made.last["joined"] == ["south: Ann (you)"])
        b.request({"do": "join", "name": "Bea", "code": code.lower().replace("-", " ")})
        assert a.ready.wait(WAIT_S) and b.ready.wait(WAIT_S)
        assert a.seated is not None and b.seated is not None
        assert a.seated.players() == {"south": "human", "north": "remote:Bea"}
        assert b.seated.players() == {"south": "remote:Ann", "north": "human"}
        assert a.seated.client.state.get("clock") == "5+3"
        assert made.last["state"] == joined.last["state"] == "ready"
        with pytest.raises(LobbyBusy):
            b.request({"do": "join", "name": "Bea", "code": code})
    finally:
        for one in (a, b):
            one.stop()
            if one.seated is not None:
                one.seated.close()
        referee.stop()


def test_waiting_for_the_others_is_given_up_and_a_new_game_made(broker: Mosquitto, tmp_path: Path) -> None:
    referee = RefereeThread(broker.url, tmp_path / "referee").start()
    views = Views()
    page = lobby(broker.url, views)
    try:
        with pytest.raises(LobbyBusy, match="nothing to cancel"):
            page.request({"do": "cancel"})
        page.request({"do": "new", "name": "Ann"})
        wait_for("the invite code", lambda: views.last["state"] == "waiting" and views.last["code"])
        first = views.last["code"]
        assert page.request({"do": "cancel"}) == {"ok": True}
        wait_for("given up", lambda: views.last["state"] == "idle")
        assert views.last["said"] == "gave up waiting for game %s; `zuni play --remote %s` goes on with your seat" % (
            first,
            first,
        )
        assert views.last["code"] == "" and page.seated is None and not page.ready.is_set()
        page.request({"do": "new", "name": "Ann"})
        wait_for("another code", lambda: views.last["state"] == "waiting" and views.last["code"])
        assert views.last["code"] != first
    finally:
        page.stop()
        referee.stop()


@pytest.mark.parametrize(
    "body, words",
    [
        ({"do": "join", "name": "Bea", "code": "12"}, "invite code '12'"),
        ({"do": "join", "name": "Bea", "code": "k7m-q2p1"}, "invite code"),
        ({"do": "new", "name": "Ann", "ruleset": "chess"}, "ruleset 'chess'"),
        ({"do": "new", "name": "Ann", "ruleset": "kolowis"}, "needs another board than this one"),
        ({"do": "new", "name": "Ann", "clock": "5 minutes"}, "clock '5 minutes'"),
        ({"do": "new", "name": ""}, "your name ''"),
        ({"do": "new", "name": "x" * 41}, "1 to 40 printable characters"),
        ({"do": "leave", "name": "Ann"}, "'do' must be 'new', 'join' or 'cancel'"),
    ],
)
def test_a_bad_request_is_refused_in_words_and_starts_nothing(body: dict[str, Any], words: str) -> None:
    views = Views()
    page = lobby("mqtt://127.0.0.1:%d" % free_port(), views)
    with pytest.raises(LobbyRequestError, match=words.replace("(", r"\(")):
        page.request(body)
    assert page.thread is None and page.seated is None
    assert [v["state"] for v in views.seen] == ["idle"]


def test_a_broker_down_is_said_and_the_lobby_asked_again(broker: Mosquitto, tmp_path: Path) -> None:
    views = Views()
    down = "mqtt://127.0.0.1:%d" % free_port()
    page = lobby(down, views)
    page.request({"do": "new", "name": "Ann"})
    wait_for("the error", lambda: views.last["error"], timeout=WAIT_S + 20)
    assert views.last["state"] == "idle"
    assert "cannot reach the broker %s" % down in views.last["error"]
    assert page.seated is None and not page.ready.is_set()
    # No referee on this one: said too (and asking again is allowed).
    page.broker = broker.url
    page.request({"do": "join", "name": "Ann", "code": "k7m-q2p"})
    wait_for("the state asking", lambda: not views.last["error"])
    wait_for("the error", lambda: views.last["error"], timeout=WAIT_S + 20)
    assert "no referee is up on %s" % broker.url in views.last["error"]
    assert page.seated is None
    page.stop()
