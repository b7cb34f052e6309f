"""`zuni play --speak` end to end (docs/play.md, *Spoken moves*): the virtual board,
moves typed at the terminal, what would be heard written by --speak-log."""

from __future__ import annotations

import re
from pathlib import Path

import zuni
from zuniboard.games.spoken import move_spoken


def test_zuni_play_speak_says_the_game_and_writes_what_it_says(tmp_path: Path) -> None:
    """`zuni play --speak --speak-log FILE` on the virtual board, moves typed at the
    terminal: without a sound device (as here, in CI) one line says why and the game goes
    on; the log has what would be heard: the refusal with its rule, each side's moves
    (the computer's with what to take off), the answers to where, moves and last."""
    from play_helpers import ZuniPlay

    from zuniboard.ai import GreedyPlayer

    log = tmp_path / "spoken.txt"
    play = ZuniPlay(
        "--sim",
        "--north",
        "ai:1",
        "--deterministic",
        "--seed",
        "3",
        "--show",
        "0.3",
        "--speak",
        "--speak-log",
        str(log),
        db=tmp_path / "games.sqlite3",
        env={"ZUNI_SIM_DIR": str(tmp_path / "sim")},
    )
    game = zuni.new_game("mosona")
    person = GreedyPlayer(5)
    try:
        play.expect(r"^new game #\d+: mosona")
        play.expect(r"south to move")
        if not pyttsx3_plays():
            assert any(line.startswith("no speech: ") and "playing on without it" in line for line in play.seen)
        play.send("m6-m5")
        play.expect(r"^m6-m5: a capture is compulsory")
        for _ in range(3):
            text = person.choose(game).text()
            play.send(text)
            play.expect(r"^%d\. south %s" % (len(game.move_stack) + 1, re.escape(text)))
            game.push(game.parse_move(text))
            if game.is_game_over():
                break
            reply = play.expect(r"^\d+\. north (\S+) \(carried out on the board\)").group(1)
            game.push(game.parse_move(reply))
            if game.is_game_over():
                break
        play.send("last")
        play.expect(r"^\d+\. North played")
        play.send("where")
        play.expect(r"^South to move\. South, \d+ pieces")
        play.send("moves s9")
        play.expect(r"^moves s9: no such point|^s9")
        play.send("quit")
        assert play.wait() == 0
    finally:
        play.close()
    lines = log.read_text(encoding="utf-8").splitlines()
    assert "South to move" in lines, lines
    assert "m6 to m5: a capture is compulsory: s3 takes m4 to m5" in lines
    texts = [m.text() for m in game.move_stack]
    assert "South, %s" % move_spoken(texts[0]) in lines
    north = game.copy()
    while len(north.move_stack) > 1:
        north.pop()
    first_reply = north.parse_move(texts[1])
    expected = "North, %s" % move_spoken(texts[1])
    if first_reply.captures:
        expected += "; take %s off" % " ".join(str(north.geometry.names[p]) for p in first_reply.captures)
    assert expected in lines, lines
    assert any(line.startswith("South to move. South, ") for line in lines), "where, said"
    assert any(" North played " in line for line in lines), "last, said"
    assert not any("thinking" in line or "terminal's hand" in line for line in lines), lines


def pyttsx3_plays() -> bool:
    from zuniboard.play.speech import Pyttsx3Voice, VoiceUnavailable

    try:
        Pyttsx3Voice.check()
    except VoiceUnavailable:
        return False
    return True
