"""The page's layout for a new user (issue 26, point 11), in real headless chromium at a
laptop's 1280x800 and a phone's 390x844: the hand and "Lay it beside the board" (used at
every capture) in view without scrolling, the board never turned (South at the bottom),
point names beside the disks and drawn over them, a hint in a colour that reads on the
dark panel, and help one line a command."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_web_browser import browser, shot, sim  # noqa: F401  (fixtures)

from zuniboard.virtual.board import VirtualBoard
from zuniboard.web.server import WebServer

SIZES = [(1280, 800, False), (390, 844, True)]


def _luminance(css: str) -> float:
    r, g, b = (int(x) / 255 for x in re.findall(r"\d+", css)[:3])

    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def _contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.fixture
def pages(browser: Any, sim: tuple[VirtualBoard, WebServer]) -> Iterator[list[tuple[int, int, Any]]]:  # noqa: F811
    vb, web = sim
    vb.set_occupied({"s1", "s2", "n1"})
    # As under `zuni play`: the page takes typed lines, so its line panel shows too.
    typed: list[str] = []
    web.sim.input.line_handler = typed.append
    out = []
    contexts = []
    for width, height, mobile in SIZES:
        ctx = browser.new_context(viewport={"width": width, "height": height}, is_mobile=mobile, has_touch=mobile)
        contexts.append(ctx)
        page = ctx.new_page()
        page.goto(web.url)
        page.wait_for_selector("#board .disk", timeout=30000)
        page.wait_for_selector("#line-panel:not([hidden])", timeout=30000)
        out.append((width, height, page))
    yield out
    for ctx in contexts:
        ctx.close()


def test_the_hand_and_lay_it_beside_are_above_the_fold(pages: list[tuple[int, int, Any]], tmp_path: Path) -> None:
    for width, height, page in pages:
        shot(page, tmp_path, "layout-%dx%d.png" % (width, height))
        button = page.locator("#btn-discard").bounding_box()
        hand = page.locator("#hand-panel").bounding_box()
        assert button is not None and hand is not None
        assert button["y"] + button["height"] <= height, (width, height, button)
        assert hand["y"] < height, (width, height, hand)


def test_south_is_at_the_bottom_and_the_names_stand_beside_the_disks(pages: list[tuple[int, int, Any]]) -> None:
    for width, height, page in pages:
        assert page.locator("#board").get_attribute("data-rotated") == "0", (width, height)
        found = page.evaluate(
            """() => {
              const svg = document.getElementById("board");
              const groups = [...svg.children].map((g) => g.getAttribute("class"));
              const at = (n) => svg.querySelector('.hit[data-point="' + n + '"]');
              const label = (n) => [...svg.querySelectorAll(".label")].find((t) => t.textContent === n);
              const p = at("s1"), l = label("s1");
              return {
                groups,
                s1: +at("s1").getAttribute("cy"), n1: +at("n1").getAttribute("cy"),
                dx: +l.getAttribute("x") - +p.getAttribute("cx"), dy: +l.getAttribute("y") - +p.getAttribute("cy"),
              };
            }"""
        )
        assert found["s1"] > found["n1"], "South's row is drawn below North's"
        assert found["groups"].index("labels") > found["groups"].index("disks"), "names over the disks"
        assert (found["dx"] ** 2 + found["dy"] ** 2) ** 0.5 > 0.3, "a name starts outside its point's disk"


def test_a_hint_reads_on_the_panel_and_help_is_one_line_a_command(pages: list[tuple[int, int, Any]]) -> None:
    page = pages[0][2]
    colours = page.evaluate(
        """() => {
          const hint = document.getElementById("hint-said");
          hint.hidden = false; hint.textContent = "Hint for South: s3xm4-m5";
          const li = document.createElement("li"); document.getElementById("said").appendChild(li);
          return {
            fg: getComputedStyle(hint).color,
            bg: getComputedStyle(document.getElementById("game-panel")).backgroundColor,
            space: getComputedStyle(li).whiteSpace,
          };
        }"""
    )
    assert _contrast(colours["fg"], colours["bg"]) >= 4.5, colours
    assert colours["space"] == "pre-line", colours
