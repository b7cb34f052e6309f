"""power.md says what the firmware does with the LED supply's ~FAULT line, with the
firmware's own figure, and states what `power.settle_ms` rests on."""

from __future__ import annotations

from pathlib import Path

import pytest

from zuni_hw.fault import FAULT_BLANK_MS
from zuniboard.games import layouts
from zuniboard.hardware import power

REPO = Path(__file__).resolve().parents[2]


def test_the_blanking_is_the_firmwares() -> None:
    assert power.FAULT_BLANK_MS == FAULT_BLANK_MS


@pytest.mark.parametrize("name", ["board25", "board25-matrix", "board49", "board168"])
def test_power_md_describes_the_fault_read(name: str) -> None:
    layout = layouts.load_layout(name)
    text = (REPO / "hardware" / name / "power.md").read_text()
    section = text.split("## The LED supply's ~FAULT on GP%d" % layout.power["fault"], 1)[1].split("\n## ", 1)[0]
    assert "**%d ms**" % FAULT_BLANK_MS in section
    assert "EN low on GP%d" % layout.power["led_enable"] in section
    assert "`event fault led-supply`" in section and "`fault=led-supply`" in section
    assert "[tps2553fault]" in section and "- [tps2553fault] " in text  # the source is listed
    # settle_ms against the charge it waits for, and the word that nothing was measured
    idle = layout.led_count * layout.leds["idle_ma"]
    charge = power.rail_uf(layout) * power.RAIL_V / (power.ILIM_MIN_MA - idle)
    assert "= %.1f ms, so %d ms" % (charge, layout.power["settle_ms"]) in section
    assert charge < layout.power["settle_ms"] and charge < FAULT_BLANK_MS
    assert "Assumed, not measured" in section
