"""A clone carries its contract (issue 26, point 9): the rules and the board's behaviour
are in docs/rules.md and docs/board.md, in the project's own words, and no doc, README or
`--help` sends the reader to a file outside the repository."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from zuniboard.cli import build_parser

REPO = Path(__file__).resolve().parents[2]
# Names of the specs that live outside a clone; "docs/rules.md" and "rules.md" are fine.
OUTSIDE = re.compile(r"\.\./shared|/work/shared|(?<![\w/])RULES\.md|(?<![\w/])BOARD\.md|seeds/|MICROPYTHON-NOTES")


def _helps(parser: argparse.ArgumentParser, name: str = "zuni") -> dict[str, str]:
    out = {name: parser.format_help()}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, subparser in action.choices.items():
                out.update(_helps(subparser, "%s %s" % (name, sub)))
    return out


def test_no_doc_or_help_sends_the_reader_outside_the_clone() -> None:
    docs = [REPO / "README.md", REPO / "hardware" / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    found = []
    for path in docs:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if OUTSIDE.search(line):
                found.append("%s:%d: %s" % (path.relative_to(REPO), number, line.strip()))
    for command, text in _helps(build_parser()).items():
        for line in text.splitlines():
            if OUTSIDE.search(line):
                found.append("%s --help: %s" % (command, line.strip()))
    assert not found, "\n".join(found)


def test_the_rules_and_the_board_are_in_the_clone() -> None:
    rules = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    for fact in (
        "perft(d)",  # the perft convention
        "(i + 0.5, 1)",  # the line games' coordinates
        "54\nedges" if "54\nedges" in rules else "54 edges",
        "110 edges",
        "u . v > 0",  # jumps=beyond, exactly
        "`a` + (c + 1)",  # Awithlaknakwe's square names
        "L+2d",  # custody, exactly
        "Reading the text of a legal move",  # move text round trip
        "### Ruleset strings",
        "Positions as text",
    ):
        assert fact in rules, fact
    board = (REPO / "docs" / "board.md").read_text(encoding="utf-8")
    for fact in ("150 ms", "at most 200 ms", "after 1 s", "after 2 s", "74HC165", "500 mA", "never acted on"):
        assert fact in board, fact
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "docs/board.md" in readme and "docs/rules.md" in readme
