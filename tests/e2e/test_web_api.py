"""The browser page's server and control API, against the real firmware under MicroPython
(the virtual board), without a browser. tests/browser/test_web_browser.py drives the page itself.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from vboard_helpers import frame_hex, idle_picture
from waiting import wait_until

import zuni
from zuniboard.virtual.board import VirtualBoard
from zuniboard.web import WebServer, start_web

REPO = Path(__file__).resolve().parents[2]


class Page:
    """A client of the page's server: the control API as tests and demos use it."""

    def __init__(self, board: VirtualBoard, web: WebServer) -> None:
        self.board = board
        self.web = web
        self.url = web.url

    def get(self, path: str) -> tuple[int, Any]:
        try:
            with urllib.request.urlopen(self.url + path.lstrip("/"), timeout=5) as r:
                body = r.read()
                ctype = r.headers.get("Content-Type", "")
                return r.status, json.loads(body) if "json" in ctype else body.decode()
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def post(self, path: str, body: Any = None, raw: bytes | None = None) -> tuple[int, dict[str, Any]]:
        data = raw if raw is not None else json.dumps(body or {}).encode()
        req = urllib.request.Request(self.url + "api/" + path, data=data, method="POST")
        req.add_header("Content-Type", "application/json")
        req.add_header("Origin", self.url.rstrip("/"))  # as the page's browser sends it
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def ok(self, path: str, body: Any = None) -> dict[str, Any]:
        status, reply = self.post(path, body)
        assert status == 200 and reply["ok"], reply
        return reply

    def state(self) -> dict[str, Any]:
        status, state = self.get("api/state")
        assert status == 200
        return state  # type: ignore[no-any-return]

    def wait_state(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 15.0) -> dict[str, Any]:
        """Poll the state until ``predicate`` holds (the firmware acts after its debounce)."""
        seen: list[dict[str, Any]] = [{}]

        def holds() -> dict[str, Any] | None:
            seen[0] = self.state()
            return seen[0] if predicate(seen[0]) else None

        state = wait_until(holds, lambda: "the state; last: %s" % json.dumps(lit(seen[0])), timeout, step=0.03)
        assert state is not None
        return state


def lit(state: dict[str, Any]) -> dict[str, str]:
    """The lit LEDs of a state: point -> "#rrggbb"."""
    return {p: c for p, c in state["leds"].items() if c != "#000000"}


def play_by_api(page: Page, game: Any, text: str) -> None:
    """Carry out ``text`` with the API as a person would: lift, place, take captures off."""
    move = game.parse_move(text)
    names = game.geometry.names
    page.ok("lift", {"point": names[move.origin]})
    page.ok("place", {"point": names[move.dest]})
    for p in move.captures:
        page.ok("remove", {"point": names[p]})


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Page]:
    with VirtualBoard("board25", ruleset="mosona", pieces="empty", flash=tmp_path / "flash.img") as vb:
        web = start_web(vb, 0)
        try:
            yield Page(vb, web)
        finally:
            web.close()


def test_board_description_and_static_files(page: Page) -> None:
    status, board = page.get("api/board")
    assert status == 200
    assert board["shape"] == "lines" and board["ruleset"] == "mosona" and board["layout"] == "board25"
    assert len(board["names"]) == 25 and board["names"][board["coords"].index([5.0, 0.0])] == "m5"
    assert ["s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8"] in board["lines"]
    assert sorted(board["homes"]) == ["north", "south"] and board["sides"] == ["south", "north"]
    assert board["palette"]["#0028ff"] == "blue" and board["palette"]["#003840"] == "dim-cyan"
    status, html = page.get("/")
    assert status == 200 and "/static/board.js" in html and "<svg" in html
    for name in ("board.js", "board.css", "favicon.svg"):
        assert page.get("static/" + name)[0] == 200
    assert page.get("static/../server.py")[0] == 404
    assert page.get("static/nothing.js")[0] == 404
    status, reply = page.get("api/nothing")
    assert status == 404 and "/api/nothing" in reply["error"]


def test_setup_then_the_opening_move(page: Page) -> None:
    state = page.state()
    assert state["pieces"] == {} and len(state["tray"]) == 24 and state["link"] == page.board.port_path
    # An empty board at a new game: the firmware asks for the pieces (white, blinking).
    reply = page.ok("setup")
    assert len(reply["placed"]) == 24 and reply["cleared"] == []
    game = zuni.new_game("mosona")
    state = page.wait_state(lambda s: lit(s) == idle_picture(game))
    assert state["pieces"]["s3"]["side"] == "south" and state["pieces"]["n1"]["side"] == "north"
    assert sorted(state["sensors"]) == sorted(state["pieces"]) == sorted(page.board.sensors())

    # Lift the only piece that may move: its destination and its capture light up.
    mover = page.ok("lift", {"point": "s3"})["piece"]
    assert mover["side"] == "south"
    state = page.wait_state(lambda s: lit(s).get("m5") == "#00ff80")
    assert lit(state) == {"s3": "#0028ff", "m5": "#00ff80", "m4": "#ff6000"}
    assert state["hand"] == [mover] and "s3" not in state["pieces"]
    assert lit(state) == frame_hex(page.board)  # the API shows the firmware's own frame

    page.ok("place", {"point": "m5"})
    page.ok("remove", {"point": "m4"})
    game.push_text("s3xm4-m5")
    state = page.wait_state(lambda s: lit(s) == idle_picture(game))
    assert state["pieces"]["m5"]["id"] == mover["id"]
    assert [(p["side"], p["kind"]) for p in state["tray"]] == [("north", "man")]
    assert state["hand"] == []


def test_a_few_moves_with_move_and_remove(page: Page) -> None:
    page.ok("setup")
    game = zuni.new_game("mosona")
    page.wait_state(lambda s: lit(s) == idle_picture(game))
    for _ in range(3):
        text = game.legal_moves()[0].text()
        play_by_api(page, game, text)
        game.push_text(text)
        page.wait_state(lambda s, g=game: lit(s) == idle_picture(g))
    state = page.state()
    assert sorted(state["pieces"]) == sorted(game.geometry.names[i] for i in range(25) if game.board[i])


def test_move_call_is_a_lift_and_a_place(page: Page) -> None:
    page.ok("setup")
    game = zuni.new_game("mosona")
    page.wait_state(lambda s: lit(s) == idle_picture(game))
    reply = page.ok("move", {"from": "s3", "to": "m5"})
    assert reply["piece"]["side"] == "south"
    state = page.wait_state(lambda s: lit(s).get("m4") is not None)
    assert "m5" in state["pieces"] and "s3" not in state["pieces"]
    # The capture is still on the board: the firmware blinks it (orange, fast) until it is gone.
    assert state["leds"]["m4"] in ("#ff6000", "#000000")


@pytest.mark.parametrize(
    ("path", "body", "status", "message"),
    [
        ("lift", {"point": "m5"}, 409, "lift m5: no disk on m5 to lift"),
        ("lift", {"point": "q7"}, 400, "unknown point 'q7'"),
        ("lift", {}, 400, "'point': expected a non-empty string"),
        ("lift", {"point": 5}, 400, "'point': expected a non-empty string, got 5"),
        ("place", {"point": "m5"}, 409, "place m5: the hand is empty"),
        ("place", {"point": "m5", "piece": "one"}, 400, "'piece': expected a disk id"),
        ("move", {"from": "s3", "to": "s4"}, 409, "s4 is already occupied"),
        ("move", {"from": "m5", "to": "s4"}, 409, "no disk on m5"),
        ("discard", {}, 409, "the hand is empty"),
        ("take", {"side": "east"}, 409, "no east in the tray"),
        ("press", {"button": "reset"}, 400, "unknown button 'reset'"),
        ("setup", {"ruleset": "kolowis"}, 400, "needs another board than board25"),
        ("setup", {"ruleset": "chess"}, 400, "chess"),
        ("fly", {}, 404, "no such API call: POST /api/fly"),
    ],
)
def test_bad_requests_get_a_clear_error_and_change_nothing(
    page: Page, path: str, body: dict[str, Any], status: int, message: str
) -> None:
    page.ok("setup")
    page.wait_state(lambda s: len(s["sensors"]) == 24)
    before = page.state()
    got, reply = page.post(path, body)
    assert got == status, reply
    assert reply["ok"] is False and message in reply["error"]
    after = page.state()
    for key in ("pieces", "hand", "tray", "sensors"):
        assert after[key] == before[key]
    assert sorted(page.board.sensors()) == sorted(before["sensors"])


def test_malformed_bodies(page: Page) -> None:
    status, reply = page.post("lift", raw=b"{not json")
    assert status == 400 and "not JSON" in reply["error"]
    status, reply = page.post("lift", raw=b"[1, 2]")
    assert status == 400 and "JSON object" in reply["error"]
    status, reply = page.post("lift", raw=b"x" * 20000)
    assert status == 413


def test_setup_of_other_rules_of_the_same_board(page: Page) -> None:
    reply = page.ok("setup", {"ruleset": "kolowis size=short"})
    assert len(reply["placed"]) == 24
    state = page.state()
    assert state["ruleset"] == "kolowis size=short" and state["title"] == "Kolowis Awithlaknannai"
    assert page.get("api/board")[1]["ruleset"] == "kolowis size=short"
    assert len(state["pieces"]) == 24 and state["tray"] == []
    # The firmware still plays Mosona (no host told it otherwise) and says so when the
    # board is set up: the page keeps the rules the person set up.
    state = page.wait_state(lambda s: s["board"] is not None and s["board"]["phase"] == "play")
    assert state["board"]["ruleset"] == "mosona"
    assert state["ruleset"] == "kolowis size=short" and state["title"] == "Kolowis Awithlaknannai"


def test_page_follows_a_new_game_of_other_rules_on_the_board(page: Page) -> None:
    from zuniboard.link.client import BoardLink

    page.ok("setup")
    page.wait_state(lambda s: s["board"] is not None and s["board"]["phase"] == "play")
    with BoardLink.open(page.board.port_path, timeout=10.0) as link:
        link.new_game("kolowis size=short")  # a host begins a game of other rules
        state = page.wait_state(lambda s: s["ruleset"] == "kolowis size=short")
        assert state["title"] == "Kolowis Awithlaknannai" and len(state["pieces"]) == 24
        page.ok("setup", {"ruleset": "mosona"})  # the person sets up Mosona again...
        page.wait_state(lambda s: s["ruleset"] == "mosona" and s["board"]["phase"] == "play")
        game = page.state()["board"]["game"]
        link.new_game("kolowis size=short")  # ...and a host's new game (same rules as before) counts
        state = page.wait_state(lambda s: s["board"]["game"] != game and s["ruleset"] == "kolowis size=short")
        assert state["board"]["ruleset"] == "kolowis size=short" and len(state["pieces"]) == 24


def test_buttons_reach_the_firmware(page: Page) -> None:
    page.ok("setup")
    game = zuni.new_game("mosona")
    page.wait_state(lambda s: lit(s) == idle_picture(game))
    page.ok("press", {"button": "hint"})
    # HINT shows the one legal move, double flash: origin blue, landing green, capture orange.
    state = page.wait_state(lambda s: lit(s).get("s3") == "#0028ff")
    assert set(lit(state)) <= {"s3", "m5", "m4"} | set(idle_picture(game))


def test_events_stream_follows_every_change(page: Page) -> None:
    with urllib.request.urlopen(page.url + "api/events", timeout=10) as stream:
        assert stream.headers["Content-Type"] == "text/event-stream"

        def next_state() -> dict[str, Any]:
            event = data = ""
            while True:
                line = stream.readline().decode()
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    data = line[5:].strip()
                elif line == "\n" and data:
                    assert event == "state"
                    return json.loads(data)  # type: ignore[no-any-return]

        first = next_state()
        assert first["pieces"] == {}
        page.ok("setup")

        def set_up() -> dict[str, Any] | None:
            state = next_state()
            return state if len(state["pieces"]) == 24 and lit(state) else None

        state = wait_until(set_up, "the stream to send the set-up board", 5, step=0)
        assert state is not None and state["seq"] > first["seq"]


def test_world_follows_other_control_clients(page: Page) -> None:
    """The terminal's hand of `zuni play --sim` moves disks on the control channel; the
    page shows the same disks moving and the captured one beside the board."""
    page.ok("setup")
    page.wait_state(lambda s: len(s["sensors"]) == 24)
    mover = page.state()["pieces"]["s3"]["id"]
    board = page.board
    board.lift("s3")
    board.place("m5")
    board.lift("m4")
    state = page.wait_state(lambda s: "m4" not in s["pieces"] and "m5" in s["pieces"])
    assert state["pieces"]["m5"]["id"] == mover
    assert [p["side"] for p in state["tray"]] == ["north"] and state["hand"] == []


def test_page_follows_a_restart(page: Page) -> None:
    page.ok("setup")
    page.wait_state(lambda s: len(s["sensors"]) == 24)
    before = page.state()["pieces"]
    page.board.restart()  # a power cycle: new process, new control port, same pieces
    state = page.wait_state(lambda s: s["connected"] and page.web.sim.reconnects >= 1)
    assert state["pieces"] == before
    page.ok("lift", {"point": "s3"})
    assert "s3" not in page.board.sensors()


def test_page_lets_a_closed_board_go(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import zuniboard.web.server as server

    monkeypatch.setattr(server, "GIVE_UP_S", 0.5)
    vb = VirtualBoard("board25", pieces="start", flash=tmp_path / "f.img")
    vb.start()
    with start_web(vb, 0) as web:
        page = Page(vb, web)
        vb.close()
        page.wait_state(lambda s: not s["connected"])
        # It stops knocking on the dead board's port.
        wait_until(lambda: not web.sim._pump.thread.is_alive(), "the page to let the board go", 10, step=0.05)
        status, reply = page.post("lift", {"point": "s3"})
        assert status == 503 and "closed" in reply["error"]
        assert len(page.state()["pieces"]) == 24  # the world is as it was


def test_page_for_the_168_square_board(tmp_path: Path) -> None:
    with VirtualBoard("board168", ruleset="awithlaknakwe", pieces="start", flash=tmp_path / "f.img") as vb:
        with start_web(vb, 0) as web:
            page = Page(vb, web)
            board = page.get("api/board")[1]
            assert board["shape"] == "squares" and len(board["names"]) == 168 and board["lines"] == []
            assert board["homes"]["west"] == ["a5", "a6", "a7", "a8", "a9", "a10"]
            state = page.state()
            # The magnets at power-on are the start position: the disks are South's and North's.
            assert {p["side"] for p in state["pieces"].values()} == {"south", "north"}
            assert sorted((p["side"], p["kind"]) for p in state["tray"]) == [("north", "priest"), ("south", "priest")]
            page.ok("take", {"side": "south", "kind": "priest"})
            status, reply = page.post("place", {"point": "e1"})
            assert status == 409 and "e1 is already occupied" in reply["error"]


def test_play_hook_serves_the_page(tmp_path: Path) -> None:
    """`zuni play --sim` asks zuniboard.web.page.serve(board) for the page's address."""
    from zuniboard.play.connect import browser_page
    from zuniboard.web import page as web_page

    with VirtualBoard("board25", pieces="start", flash=tmp_path / "f.img") as vb:
        try:
            url = browser_page(vb)
            assert url is not None and url.startswith("http://127.0.0.1:")
            with urllib.request.urlopen(url + "api/state", timeout=5) as r:
                state = json.loads(r.read())
            assert state["ruleset"] == "mosona" and len(state["pieces"]) == 24
            assert state["link"] == vb.port_path
        finally:
            web_page.stop_all()


def test_default_page_port_taken_falls_back(page: Page) -> None:
    from zuniboard.commands.sim import start_page

    # The fallback is tried on a port this test holds, standing in for 8765: other
    # tests' pages may hold 8765 itself, or free it, at any moment.
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    default = holder.getsockname()[1]
    try:
        web = start_page(page.board, default, default=default)
        try:
            assert web.port != default
            assert page.get("api/state")[0] == 200
        finally:
            web.close()
        # A port the user asked for is not silently replaced.
        with pytest.raises(OSError, match="cannot serve the page on 127.0.0.1:%d" % page.web.port):
            start_page(page.board, page.web.port, default=default)
    finally:
        holder.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_zuni_sim_serves_the_page(tmp_path: Path) -> None:
    env = dict(os.environ, ZUNI_SIM_DIR=str(tmp_path))
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "zuniboard.cli", "sim", "--seconds", "20", "--http", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=REPO,
        text=True,
    )
    try:
        assert proc.stdout is not None
        lines = []
        url = None
        deadline = time.monotonic() + 15
        while url is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            m = re.match(r"browser page:\s+(\S+)", line)
            if m:
                url = m.group(1)
        assert url == "http://127.0.0.1:%d/" % port, "".join(lines)
        assert any(line.startswith("serial port:") and "/dev/" in line for line in lines)
        with urllib.request.urlopen(url + "api/state", timeout=5) as r:
            state = json.loads(r.read())
        # `zuni sim` powers the board on with the pieces in the start position.
        assert len(state["pieces"]) == 24 and state["ruleset"] == "mosona"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_page_shows_the_firmwares_phase_turn_and_moves(page: Page) -> None:
    # The firmware reports its state on the control channel (state? on connect, then a
    # state event on each change): the page's board field follows setup, a move, the turn.
    state = page.wait_state(lambda s: s["board"] is not None)
    assert state["board"]["phase"] == "setup" and state["board"]["moves"] == 0
    page.ok("setup")
    state = page.wait_state(lambda s: s["board"]["phase"] == "play")
    assert state["board"]["turn"] == "south" and state["board"]["ruleset"] == "mosona"
    game = zuni.new_game("mosona")
    play_by_api(page, game, "s3xm4-m5")
    state = page.wait_state(lambda s: s["board"]["moves"] == 1)
    board = state["board"]
    assert board["turn"] == "north" and board["phase"] == "play", board
    assert len(board["occupancy"]) == 25 and set(board["occupancy"]) <= {"0", "1"}
    assert "error" not in board


# -- the API obeys only its own page (docs/simulator.md, "Who may use it") ----------------


def raw_request(
    page: Page, method: str, path: str, headers: dict[str, str], body: bytes = b"", host: str | None = None
) -> tuple[int, dict[str, Any], dict[str, str]]:
    """One request as an attacker's page (or a rebinding DNS name) would send it: every
    header as given, ``Host`` forged when ``host`` is given (``""``: no Host at all)."""
    conn = http.client.HTTPConnection("127.0.0.1", page.web.port, timeout=10)
    try:
        conn.putrequest(method, path, skip_host=host is not None, skip_accept_encoding=True)
        if host:
            conn.putheader("Host", host)
        for name, value in headers.items():
            conn.putheader(name, value)
        conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        response = conn.getresponse()
        raw = response.read()
        ctype = response.getheader("Content-Type", "")
        reply = json.loads(raw) if raw and "json" in ctype else {"text": raw.decode(errors="replace")}
        return response.status, reply, {k.lower(): v for k, v in response.getheaders()}
    finally:
        conn.close()


def _unchanged(page: Page, before: dict[str, Any]) -> None:
    after = page.state()
    for key in ("pieces", "hand", "tray", "sensors"):
        assert after[key] == before[key], key
    assert sorted(page.board.sensors()) == sorted(before["sensors"])


def test_cross_origin_posts_are_refused_and_change_nothing(page: Page) -> None:
    page.ok("setup")
    before = page.wait_state(lambda s: len(s["sensors"]) == 24)
    own = page.url.rstrip("/")
    lift = json.dumps({"point": "s3"}).encode()
    refused = [
        # The attack of issue 16: a "simple" request (no CORS preflight) from another site.
        ({"Origin": "http://evil.example", "Content-Type": "text/plain"}, "from origin 'http://evil.example'"),
        ({"Origin": "http://evil.example", "Content-Type": "application/json"}, "only the page itself"),
        ({"Origin": "null", "Content-Type": "application/json"}, "from origin 'null'"),  # a sandboxed frame
        ({"Origin": "http://127.0.0.1:1", "Content-Type": "application/json"}, "from origin"),  # another local port
        ({"Origin": "https://" + own[len("http://") :], "Content-Type": "application/json"}, "from origin"),
        ({"Referer": "http://evil.example/page.html", "Content-Type": "application/json"}, "from page"),
        ({"Content-Type": "application/json"}, "neither Origin nor Referer"),
        # The page's own origin, but not JSON: a form post (text/plain, urlencoded, multipart).
        ({"Origin": own, "Content-Type": "text/plain"}, "Content-Type 'text/plain'"),
        ({"Origin": own, "Content-Type": "application/x-www-form-urlencoded"}, "takes application/json"),
        ({"Origin": own, "Content-Type": "multipart/form-data; boundary=x"}, "takes application/json"),
        ({"Origin": own}, "Content-Type ''"),
    ]
    for headers, message in refused:
        for call in ("lift", "setup", "press"):
            status, reply, _ = raw_request(page, "POST", "/api/" + call, headers, lift)
            assert status == 403, (headers, reply)
            assert reply["ok"] is False and reply["error"].startswith("refused: ") and message in reply["error"], (
                headers,
                reply,
            )
    _unchanged(page, before)
    # The same requests from the page's own origin are obeyed: by Origin, by Referer alone
    # (a browser that sends no Origin), with a charset in the content type.
    status, reply, _ = raw_request(page, "POST", "/api/lift", {"Origin": own, "Content-Type": "application/json"}, lift)
    assert status == 200 and reply["ok"], reply
    place = json.dumps({"point": "s3"}).encode()
    headers = {"Referer": page.url + "index.html", "Content-Type": "application/json; charset=utf-8"}
    status, reply, _ = raw_request(page, "POST", "/api/place", headers, place)
    assert status == 200 and reply["ok"], reply
    host = "localhost:%d" % page.web.port  # the page opened as localhost: its own origin is that
    headers = {"Origin": "http://" + host, "Content-Type": "application/json"}
    status, reply, _ = raw_request(page, "POST", "/api/press", headers, b'{"button": "hint"}', host=host)
    assert status == 200 and reply["ok"], reply


def test_requests_naming_another_host_are_refused(page: Page) -> None:
    """DNS rebinding: a page of evil.example whose name now points at 127.0.0.1 sends
    Host: evil.example; the server answers it nothing, not even the page or the stream."""
    port = page.web.port
    page.ok("setup")
    before = page.wait_state(lambda s: len(s["sensors"]) == 24)
    for host in ("evil.example:%d" % port, "evil.example", "127.0.0.1:1", "localhost.evil.example:%d" % port, ""):
        for path in ("/api/state", "/api/board", "/api/events", "/", "/static/board.js"):
            for method in ("GET", "HEAD"):
                status, reply, headers = raw_request(page, method, path, {}, host=host)
                assert status == 403, (host, path, reply)
                if method == "GET":
                    assert reply["error"].startswith("refused: ") and "Host" in reply["error"], reply
                    assert "/dev/" not in json.dumps(reply), "nothing of the board leaks"
                assert (
                    headers.get("content-type") == "application/json" and "access-control-allow-origin" not in headers
                )
        # A POST that would pass every other check is refused for its Host alone.
        own = {"Origin": "http://" + host, "Content-Type": "application/json"}
        status, reply, _ = raw_request(page, "POST", "/api/lift", own, b'{"point": "s3"}', host=host)
        assert status == 403 and "Host" in reply["error"], reply
    _unchanged(page, before)
    # This server's own names are answered.
    for host in ("127.0.0.1:%d" % port, "localhost:%d" % port, "LocalHost:%d" % port, "[::1]:%d" % port):
        status, reply, _ = raw_request(page, "GET", "/api/state", {}, host=host)
        assert status == 200 and reply["link"] == page.board.port_path, (host, reply)
    # No CORS: a preflight gets no permission (so a cross-site JSON POST never leaves the browser).
    preflight = {
        "Origin": "http://evil.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
    }
    status, _, headers = raw_request(page, "OPTIONS", "/api/lift", preflight)
    assert status >= 400 and "access-control-allow-origin" not in headers


def test_the_page_serves_on_loopback_only() -> None:
    from zuniboard.web.server import WebServer, loopback_only

    for host in ("127.0.0.1", "localhost", "::1", "127.0.0.2"):
        assert loopback_only(host) == host
    for host in ("0.0.0.0", "192.168.1.20", "", "evil.example", "::"):
        with pytest.raises(ValueError, match="loopback only"):
            loopback_only(host)
    with pytest.raises(ValueError, match="no password or token"):
        WebServer(None, 0, host="0.0.0.0")  # type: ignore[arg-type]  # refused before it is used


def test_typed_lines_go_to_a_game_controller_only_when_one_plays(page: Page) -> None:
    """POST /api/line hands the line to `zuni play`'s game controller; with none (zuni sim
    alone) it is refused; the controller's view of the game is merged into the state."""
    status, reply = page.post("line", {"text": "s3xm4-m5"})
    assert status == 409 and "no game is played from this page" in reply["error"], reply
    assert page.get("api/state")[1]["lines"] is False
    lines: list[str] = []
    page.web.sim.input.line_handler = lines.append
    page.web.sim.publish("game", {"controller": True, "said": [["wrong", "d: not a move"]], "moves": ["s3xm4-m5"]})
    try:
        assert page.ok("line", {"text": "s3xm4-m5"}) == {"ok": True}
        assert lines == ["s3xm4-m5"]
        state = page.get("api/state")[1]
        assert state["lines"] is True and "game" not in state
        assert state["play"]["said"] == [["wrong", "d: not a move"]] and state["play"]["moves"] == ["s3xm4-m5"]
        assert "refusal" in state["play"], "the narrator's view fills in the rest"
        status, reply = page.post("line", {"text": ""})
        assert status == 400 and lines == ["s3xm4-m5"]
    finally:
        page.web.sim.input.line_handler = None
        page.web.sim.publish("game", None)


@pytest.mark.parametrize(
    "board_name,position",
    [
        ("board25", "mosona | north to move | south s3 s5 | north m4 n5"),
        ("board168", "awithlaknakwe players=4 | south to move | south f13 | west m7 | north f2 | east b7"),
    ],
    ids=["mosona", "awithlaknakwe-4"],
)
def test_one_setup_action_sets_up_every_side_of_a_position(board_name: str, position: str, tmp_path: Path) -> None:
    """Issue 26 point 6: a game from a position starts with the board asking for one side
    at a time (its switches cannot tell the sides apart); one "set up the position" on the
    page clears the board and puts every side down as the board asks for it, and play
    starts on exactly the position's points."""
    from vboard_helpers import fast_layout, side_points

    from zuni.position import parse_position
    from zuniboard.link.client import BoardLink

    game = parse_position(position)
    ruleset = str(game.ruleset)
    layout = fast_layout(board_name, tmp_path)
    with VirtualBoard(layout, ruleset=ruleset, pieces="start", flash=tmp_path / "f.img") as vb:
        with start_web(vb, 0) as web, BoardLink.open(vb.port_path, timeout=10.0) as link:
            page = Page(vb, web)
            link.new_game(ruleset, position=position)
            first = next(iter(side_points(game)))
            page.wait_state(lambda s: s["board"].get("phase") == "setup" and s["board"].get("setup") == first)
            reply = page.ok("setup")  # one click
            assert reply["staged"] is True
            wanted = {p for ps in side_points(game).values() for p in ps}
            state = page.wait_state(lambda s: s["board"].get("phase") == "play", timeout=30.0)
            assert set(vb.sensors()) == wanted
            assert set(state["pieces"]) == wanted
            sides = {p: state["pieces"][p]["side"] for p in wanted}
            assert sides == {p: side for side, ps in side_points(game).items() for p in ps}
