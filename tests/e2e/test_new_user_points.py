"""The smaller points a new user hit (issue 26, point 10), each a line of its own: the
command line and files as a person gives them, through the real `zuni` command."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from play_helpers import ZUNI

from zuniboard.games.clock_view import check_clock
from zuniboard.play.start_from import StartFromError, start_from
from zuniboard.records.db import Database


def _zuni(*args: str, stdin: str | None = "", env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ZUNI), *args],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=120,
        env=dict(os.environ, NO_COLOR="1", **(env or {})),
    )


def test_board_check_takes_the_port_as_an_option_too() -> None:
    done = _zuni("board", "check", "--port", "/dev/no-such-port")
    assert done.returncode == 2
    assert "no serial port /dev/no-such-port on this computer" in done.stderr, done.stderr


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("inf", "bad base time 'inf' in a time control (at most 600 minutes: 10 hours)"),
        ("5+inf", "bad increment 'inf' in a time control (at most 3600 seconds: 1 hour)"),
        ("nan", "bad base time 'nan' in a time control (a number of minutes"),
        ("5x", "bad base time '5x' in a time control (a number of minutes)"),
        ("601", "bad base time '601' in a time control (at most 600 minutes: 10 hours)"),
        ("5+x", "bad increment 'x' in a time control (a number of seconds)"),
    ],
)
def test_clock_texts_a_person_may_type_are_refused_in_words(spec: str, words: str) -> None:
    with pytest.raises(ValueError) as caught:
        check_clock(spec, "mosona")
    assert words in str(caught.value)


def test_from_says_no_such_file_a_binary_file_and_takes_last(tmp_path: Path) -> None:
    with Database(tmp_path / "g.sqlite3") as db:
        with pytest.raises(StartFromError, match=r"--from nofile.pgn: no such file"):
            start_from("nofile.pgn", db)
        binary = tmp_path / "game.pgn"
        binary.write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
        with pytest.raises(StartFromError, match=r"a binary file, not a game record"):
            start_from(str(binary), db)
        latin = tmp_path / "latin.pgn"
        latin.write_bytes(b'[Event "caf\xe9"]\n')
        with pytest.raises(StartFromError, match=r"not a UTF-8 text file \(byte \d+\)"):
            start_from(str(latin), db)
        gid = db.new_game("mosona", players={"south": "human", "north": "ai:1"})
        db.add_move(gid, 0, "s3xm4-m5")
        db.new_game("mosona")  # a newer game with no moves: `last` passes over it
        start = start_from("last", db)
        assert start.tags.get("FromGame") == str(gid) and start.tags.get("FromPly") == "1"


def test_a_huge_import_file_is_refused_without_reading_it_whole(tmp_path: Path) -> None:
    huge = tmp_path / "huge.pgn"
    with open(huge, "wb") as f:
        f.truncate(65 * 1000 * 1000)  # sparse: no disk, 65 MB of "file"
    done = _zuni("log", "import", str(huge), "--db", str(tmp_path / "g.sqlite3"))
    assert done.returncode == 2
    assert "more than 64 MB, too big for a game records file" in done.stderr, done.stderr
    word = tmp_path / "word.pgn"
    word.write_text('[Ruleset "mosona"]\n\n' + "s" * 200000 + "\n")
    done = _zuni("log", "import", str(word), "--db", str(tmp_path / "g.sqlite3"))
    assert done.returncode == 1
    assert len(done.stderr) < 1000, "a bad move is quoted short, once: %d characters" % len(done.stderr)


def test_log_list_into_head_ends_quietly(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    records = "".join(
        '[Ruleset "mosona"]\n[Date "2026.01.%02d"]\n\n1. s3xm4-m5 *\n\n' % (i % 28 + 1) for i in range(600)
    )
    with Database(db) as d:
        from zuniboard.records import formats

        for record in formats.parse(records, "pgn")[0]:
            record.started = None
            d.import_record(record)
    listing = subprocess.Popen(
        [str(ZUNI), "log", "list", "--db", str(db)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert listing.stdout is not None and listing.stderr is not None
    listing.stdout.readline()
    listing.stdout.close()  # as `| head -1` does
    err = listing.stderr.read().decode()
    assert listing.wait(timeout=60) in (0, 141)
    assert "Traceback" not in err and "BrokenPipe" not in err, err


def test_points_in_upper_case_and_why_a_move_is_not_legal() -> None:
    done = _zuni("moves", "mosona", "S3XM4-M5")
    assert done.returncode == 0 and "n5xm5-m4" in done.stdout.split(), done.stderr
    done = _zuni("moves", "mosona", "s4-m5")
    assert done.returncode == 2
    assert "move 1: s4-m5 is not legal in mosona after 0 moves, south to move: a capture is compulsory: s3xm4-m5" in (
        done.stderr
    ), done.stderr


def test_an_empty_ruleset_is_refused(tmp_path: Path) -> None:
    done = _zuni("play", "--ruleset", "", "--db", str(tmp_path / "g.sqlite3"))
    assert done.returncode == 2 and "--ruleset ''" in done.stderr, done.stderr


def test_play_with_no_input_leaves_and_the_virtual_board_needs_no_set_up_words(tmp_path: Path) -> None:
    done = _zuni(
        "play",
        "--sim",
        "--http",
        "0",
        "--color",
        "never",
        "--db",
        str(tmp_path / "g.sqlite3"),
        stdin="",
        env={"ZUNI_SIM_DIR": str(tmp_path / "sim")},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the input ended: leaving as quit does" in done.stdout
    assert "the terminal's hand sets up the pieces" in done.stdout
    assert "set up the pieces on the board" not in done.stdout
    with Database(tmp_path / "g.sqlite3") as db:
        assert db.game_ids() == [], "no empty game left in the log"


def test_table_status_counts_what_a_stopped_build_left_and_the_build_says_the_whole_room(tmp_path: Path) -> None:
    """Issue 26 point 8: the build states the room its tables take in all (the values
    uncompressed beside the files are most of it), and `tablebase status` counts every
    byte of the folder, a stopped build's half-written files too."""
    env = {"ZUNI_TABLEBASE_DIR": str(tmp_path / "tb")}
    built = _zuni("tablebase", "build", "mosona", "--pieces", "3", env=env)
    assert built.returncode == 0, built.stderr
    assert re.search(r"about \S+ s of CPU \(longer on a busy computer\), \S+ \S+ on disk", built.stdout), built.stdout
    assert re.search(r"built in \d+ s \(\d+ s of CPU\); \S+ \S+ on disk in all", built.stdout), built.stdout
    folder = tmp_path / "tb" / "mosona"
    with open(folder / ("4v1.ztb.%d.tmp" % 999999), "wb") as f:  # as a killed builder leaves it
        f.write(b"\0" * 3_000_000)
    status = _zuni("tablebase", "status", env=env)
    assert status.returncode == 0, status.stderr
    assert re.search(r"the folder holds 3 MB in all: 3 MB of it half-written files a stopped build", status.stdout), (
        status.stdout
    )
    again = _zuni("tablebase", "build", "mosona", "--pieces", "4", env=env)
    assert again.returncode == 0, again.stderr
    assert not list(folder.glob("*.tmp")), "the next build removes them"
