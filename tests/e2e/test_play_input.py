"""Typing in `zuni play`: every legal move along whole games of every ruleset is read
as that move (never as a command: Awithlaknakwe's d2-c3 and h2-g3, the line games'
north row n5xm5-m4), through the same line editor a person types into; commands are
words or / and their first letters; Tab completes."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from play_helpers import TtyPlay
from prompt_toolkit import PromptSession
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

import zuni
from zuniboard.ai import RandomPlayer
from zuniboard.play.prompt import COMMANDS, command_named, completions, read_line
from zuniboard.play.terminal import completer
from zuniboard.records.db import Database

RULESETS = ("mosona", "kolowis", "kolowis size=short", "awithlaknakwe", "awithlaknakwe players=4")
# Through the line editor (6 to 80 ms a line, with the machine's load): every move of every
# 25th position, and the first move typed with each first letter.
EDITOR_EVERY = 25


def whole_game(ruleset: str, seed: int) -> Iterator[zuni.Game]:
    """The positions of a random game of ``ruleset`` to its end."""
    game = zuni.new_game(ruleset)
    player = RandomPlayer(seed)
    while not game.is_game_over() and len(game.move_stack) < 400:
        yield game
        game.push(player.choose(game))


@pytest.fixture(scope="module")
def editor() -> Iterator[tuple[PromptSession[str], object]]:
    with create_pipe_input() as keys:
        yield PromptSession(input=keys, output=DummyOutput()), keys


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_legal_move_typed_along_a_whole_game_is_that_move(
    ruleset: str, editor: tuple[PromptSession[str], object]
) -> None:
    session, keys = editor
    first_letters: set[str] = set()
    edited: set[str] = set()  # first letters of the moves typed through the line editor
    typed = 0
    for ply, game in enumerate(whole_game(ruleset, seed=len(ruleset))):
        legal = game.legal_moves()
        for move in legal:
            text = move.text()
            if ply % EDITOR_EVERY == 0 or text[0] not in edited:
                keys.send_text(text + "\r")  # type: ignore[attr-defined]
                assert session.prompt("> ") == text
                edited.add(text[0])
                typed += 1
            line = read_line(text, game)
            assert line.command == "" and line.error == "", (ruleset, text, line)
            assert line.move == move, (ruleset, text)
            first_letters.add(text[0])
    # The moves that were once taken as commands were typed.
    if ruleset.startswith("awith"):
        assert {"b", "c", "d", "h"} <= first_letters, first_letters
    else:
        assert "n" in first_letters, first_letters
    assert edited == first_letters
    assert typed > 0


def test_commands_are_words_or_a_slash_and_never_a_move() -> None:
    game = zuni.new_game("awithlaknakwe")
    for name in COMMANDS:
        assert read_line(name, game).command == name
        assert read_line(name.upper(), game).command == name
        assert read_line("/" + name[0], game).command in COMMANDS
    assert command_named("/h") == "hint" and command_named("/he") == "help" and command_named("/q") == "quit"
    assert read_line("?", game).command == "help"
    for letter in "hurdcnqb":
        line = read_line(letter, game)
        assert line.command == "" and line.move is None and "not a move" in line.error
    assert "no such command" in read_line("/zz", game).error
    assert "a capture is compulsory: s3xm4-m5" in read_line("m6-m5", zuni.new_game("mosona")).error


def test_tab_completes_the_legal_moves_and_the_commands() -> None:
    game = zuni.new_game("awithlaknakwe")
    game.push_text("e1-d2")
    game.push_text("e14-d13")
    words = completions(game)
    assert "d2-c3" in words and words[-len(COMMANDS) :] == list(COMMANDS)
    with create_pipe_input() as keys:
        session: PromptSession[str] = PromptSession(
            input=keys, output=DummyOutput(), completer=completer(lambda: words), complete_while_typing=False
        )

        def type_slowly() -> None:
            for part in ("d2-c", "\t", "\r", "/un", "\t", "\r"):
                time.sleep(0.2)  # Tab's completion runs between keys, as a person types
                keys.send_text(part)

        threading.Thread(target=type_slowly, daemon=True).start()
        assert session.prompt("> ") == "d2-c3"
        assert session.prompt("> ") == "undo"


def _virtual_board_or_skip() -> None:
    from zuniboard.virtual.mpy import MicroPythonMissing, micropython_executable

    try:
        micropython_executable()
    except MicroPythonMissing as exc:  # pragma: no cover
        pytest.skip("no virtual board: %s" % exc)


@pytest.mark.parametrize(
    ("ruleset", "person", "files"),
    [("awithlaknakwe", "south", "bcdh"), ("mosona", "north", "n")],
)
def test_moves_typed_at_the_terminal_are_played_on_the_virtual_board(
    ruleset: str, person: str, files: str, tmp_path: Path
) -> None:
    """The person types moves at a real terminal (the line editor on a pty); the
    terminal's hand makes each on the virtual board and the board commits it. The
    moves typed start with the letters that were once commands, whenever one can."""
    _virtual_board_or_skip()
    computer = "north" if person == "south" else "south"
    play = TtyPlay(
        "--sim",
        "--ruleset",
        ruleset,
        "--" + person,
        "human",
        "--" + computer,
        "ai:1",
        "--show",
        "0.3",
        db=tmp_path / "games.sqlite3",
        env={"ZUNI_SIM_DIR": str(tmp_path / "sim")},
    )
    game = zuni.new_game(ruleset)
    typed: list[str] = []
    try:
        while len(typed) < 4 and not game.is_game_over():
            n = len(game.move_stack) + 1
            side = zuni.SIDE_NAMES[game.turn]
            if side == computer:
                text = play.expect(r"(?<!\d)%d\. %s (\S+)" % (n, side), 40).group(1)
                game.push_text(text)
                continue
            play.expect(r"%s to move \(type it" % person, 40)
            moves = sorted(m.text() for m in game.legal_moves())
            chosen = next((m for m in moves if m[0] in files), moves[0])
            play.type(chosen)
            play.expect(r"(?<!\d)%d\. %s %s$" % (n, person, re.escape(chosen)), 40)
            game.push_text(chosen)
            typed.append(chosen)
        play.type("quit")
        assert play.wait() == 0
    finally:
        play.close()
    assert any(t[0] in files for t in typed), typed
    with Database(tmp_path / "games.sqlite3") as db:
        assert db.get(db.game_ids()[-1]).move_texts() == [m.text() for m in game.move_stack]


def test_after_quit_the_next_zuni_play_offers_to_go_on(tmp_path: Path) -> None:
    _virtual_board_or_skip()
    db = tmp_path / "games.sqlite3"
    env = {"ZUNI_SIM_DIR": str(tmp_path / "sim")}
    play = TtyPlay("--sim", "--north", "ai:1", "--show", "0.2", db=db, env=env)
    try:
        play.expect(r"south to move \(type it", 40)
        play.type("s3xm4-m5")
        play.expect(r"2\. north (\S+) \(carried out on the board\)", 40)
        play.type("/q")
        play.expect(r"game #1 is left unfinished in the log")
        assert play.wait() == 0
    finally:
        play.close()
    again = TtyPlay("--sim", "--north", "ai:1", db=db, env=env)
    try:
        again.expect(r"game #1 \(mosona, 2 moves\) was left unfinished: go on with it\? \[Y/n\]", 40)
        again.type("")  # Enter: yes
        again.expect(r"resumed game #1: mosona after 2 moves", 40)
        again.expect(r"south to move \(type it", 40)
        again.type("quit")
        assert again.wait() == 0
    finally:
        again.close()
    with Database(db) as d:
        assert d.game_ids() == [1], "no new game: the unfinished one went on"
