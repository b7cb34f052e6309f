"""The LED rail's switch-on current, per shipped board, computed from the circuit model
and the layouts (``zuniboard.hardware.power``): the built design's peak (U3 charging the rail at
its current limit) as power.md states it, why no TPS2553 current limit fixes it, and the
proposed MOSFET ramp inside the USB grant with margin."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from zuniboard.games import layouts
from zuniboard.hardware import circuit, power

REPO = Path(__file__).resolve().parents[2]
NAMES = [p.stem for p in layouts.layout_paths()]


@pytest.fixture(params=NAMES)
def layout(request: pytest.FixtureRequest) -> object:
    return layouts.load_layout(request.param)


def test_built_switch_on_is_the_limit_plus_the_dark_board_and_power_md_says_so(layout: object) -> None:
    assert power.gated(layout)
    peak, ms = power.switch_on_now(layout)
    assert peak == pytest.approx(power.ILIM_MAX_MA + power.dark_ma(layout))
    # The charge time at the slowest limit, with every idle LED taking its share.
    idle = layout.led_count * layout.leds["idle_ma"]  # type: ignore[attr-defined]
    assert ms == pytest.approx(power.rail_uf(layout) * 5.0 / (power.ILIM_MIN_MA - idle))
    assert 1.0 < ms < 5.0
    # The open defect is stated with these figures, not hidden.
    assert peak > power.usb_ma(layout)
    text = (REPO / "hardware" / layout.name / "power.md").read_text()  # type: ignore[attr-defined]
    assert "up to %.0f mA" % peak in text and "for up to %.1f ms" % ms in text
    assert "open defect" in text


def test_the_table_1_row_in_use_is_the_one_the_model_builds() -> None:
    lo, hi = power.ILIM_TABLE[circuit.ILIM_OHMS / 1000]
    assert (round(lo), round(hi)) == (power.ILIM_MIN_MA, power.ILIM_MAX_MA)


def test_no_tps2553_limit_in_table_1_passes_both_play_and_switch_on(layout: object) -> None:
    dark = power.dark_ma(layout)
    need = power.rail_load_ma(layout)
    for lo, hi in power.ILIM_TABLE.values():
        assert hi + dark > power.usb_ma(layout) or lo < need
    # ...and the shipped limit passes play with room.
    assert power.ILIM_MIN_MA > need * 1.3


def test_proposed_miller_ramp_stays_inside_the_grant_with_margin(layout: object) -> None:
    ramp = power.switch_on_ramp(layout)
    assert ramp.peak_ma < power.design_limit_ma(layout)  # 90 % of 500 mA, at the fastest slope
    assert ramp.peak_ma - power.dark_ma(layout) < power.ILIM_MIN_MA  # U3 never limits: ~FAULT stays high
    # The fastest slope: 5 V over R C at their low tolerances (100 kOhm -1 %, 82 nF -10 %),
    # into C3 +20 % and every LED's 100 nF +10 %.
    rc_ms = 100e3 * 0.99 * 82e-9 * 0.9 * 1000
    c_uf = 220.0 * 1.2 + layout.led_count * 0.1 * 1.1  # type: ignore[attr-defined]
    charge = ramp.peak_ma - power.dark_ma(layout) - layout.led_count * layout.leds["idle_ma"] - power.AHCT125_MA  # type: ignore[attr-defined]
    assert charge == pytest.approx(c_uf * 5.0 / rc_ms)
    assert ramp.fastest_ms == pytest.approx(rc_ms)
    assert ramp.slowest_ms == pytest.approx(5.0 / (2.5 / (100e3 * 1.01 * 82e-9 * 1.1 * 1000)))
    text = (REPO / "hardware" / layout.name / "power.md").read_text()  # type: ignore[attr-defined]
    row = re.search(r"\*\*switch-on peak\*\*.*\| \*\*([\d.]+) mA\*\* \|", text)
    assert row is not None and float(row.group(1)) == round(ramp.peak_ma, 1)
    assert "at least twice the slowest rise (%.0f ms)" % (2 * ramp.slowest_ms) in text


def test_readme_states_the_switch_on_range_of_the_shipped_boards() -> None:
    figures = [power.switch_on_now(layouts.load_layout(name)) for name in NAMES]
    peaks, times = [f[0] for f in figures], [f[1] for f in figures]
    text = " ".join((REPO / "hardware" / "README.md").read_text().split())
    assert "up to %.0f-%.0f mA" % (min(peaks), max(peaks)) in text
    assert "for %.1f-%.1f ms" % (min(times), max(times)) in text
    ramp = power.switch_on_ramp(layouts.load_layout("board168"))
    assert "at most %.0f mA on board168" % ramp.peak_ma in text
