"""The LED rail's switch-on against U3's current limit, its ~FAULT deglitch and the USB
port, per shipped board: the figures ``power.switch_on`` computes from the circuit model,
power.md stating exactly those, and the timing figures of the ~FAULT path (the TPS2553's
deglitch, the firmware's blanking, the switch-on charge) consistent with each other
wherever they are written: power.py, power.md, the firmware and hardware/README.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from zuni_board.layout import Layout
from zuni_hw import fault
from zuniboard.games import layouts
from zuniboard.hardware import circuit, power

REPO = Path(__file__).resolve().parents[2]
NAMES = [p.stem for p in layouts.layout_paths()]
SECTION = "## Switch-on against the limit, ~FAULT and the USB port"


@pytest.fixture(params=NAMES)
def layout(request: pytest.FixtureRequest) -> Layout:
    return layouts.load_layout(request.param)


def _section(layout: Layout, title: str) -> str:
    text = (REPO / "hardware" / layout.name / "power.md").read_text()
    return text.split(title, 1)[1].split("\n## ", 1)[0]


def _sentences(text: str) -> list[str]:
    """A markdown text's table rows and its prose's sentences (a sentence may run over lines)."""
    out: list[str] = []
    for block in text.split("\n\n"):
        if block.startswith("|"):
            out += block.splitlines()
        else:
            out += re.split(r"(?<=[.:;])\s", " ".join(block.split()))
    return out


def test_the_switch_on_figures_come_from_the_model(layout: Layout) -> None:
    on = power.switch_on(layout)
    rail = circuit.BULK_UF + layout.led_count * 0.1  # C3 and 100 nF at every LED
    idle = layout.led_count * layout.leds["idle_ma"]
    assert on.rail_uf == pytest.approx(rail)
    assert on.longest_ms == pytest.approx(rail * 5.0 / (544.0 - idle))  # the minimum limit
    assert on.charge_ms(673.0) < on.charge_ms(604.6) < on.longest_ms
    assert on.peak_ma == pytest.approx(673.0 + power.dark_ma(layout))
    # The same charge and peak as the older figures of the "Switch-on" section.
    assert (on.peak_ma, on.longest_ms) == pytest.approx(power.switch_on_now(layout))
    # VBUS at the Pico: 4.75 V less the peak through 2 x 1 m of 28 AWG.
    assert on.pico_vbus_v == pytest.approx(4.75 - on.peak_ma / 1000 * 2 * 0.213)
    assert on.pico_vbus_v > 4.0  # far above the Pico's VSYS minimum, with a Schottky drop


def test_the_switch_on_runs_at_the_limit_is_over_the_grant_and_does_not_assert_fault(layout: Layout) -> None:
    on = power.switch_on(layout)
    # The rail would have to rise over ms to stay under the limit; the chip's soft start is far faster.
    assert on.rise_to_stay_under_ms > 1.0
    assert not on.asserts_fault and on.longest_ms < power.FAULT_DEGLITCH_MS[0]
    assert on.over_grant  # the open defect, stated not hidden


def test_power_md_states_the_computed_switch_on(layout: Layout) -> None:
    on = power.switch_on(layout)
    section = _section(layout, SECTION)
    lo, typ, hi = on.limit_ma
    assert "| %.1f / %.1f / %.1f mA | [tps2553tab] |" % (lo, typ, hi) in section
    charge = (on.charge_ms(lo), on.charge_ms(typ), on.charge_ms(hi))
    assert "| %.2f / %.2f / %.2f ms |" % charge in section
    assert "| **%.1f mA** | against %d mA granted |" % (on.peak_ma, on.grant_ma) in section
    assert "| %.2f V |" % on.pico_vbus_v in section
    assert "**~FAULT: not asserted.**" in section and "**The USB grant: over.**" in section


def test_every_deglitch_figure_is_the_datasheets(layout: Layout) -> None:
    dmin, dtyp, dmax = power.FAULT_DEGLITCH_MS
    assert (dmin, dtyp, dmax) == (6.0, 7.5, 9.0)  # SLVS841, FAULT deglitch, overcurrent
    assert "6 / 7.5 / 9 ms (min / typ / max)" in power.SRC["tps2553fault"]
    assert "| %.1f / %.1f / %.1f ms | [tps2553fault] |" % (dmin, dtyp, dmax) in _section(layout, SECTION)
    fault_md = _section(layout, "## The LED supply's ~FAULT on GP%d" % layout.power["fault"])
    assert "%.1f-%.1f ms (%.1f typical) [tps2553fault]" % (dmin, dmax, dtyp) in fault_md
    scan = layout.timing["scan_ms"]
    assert "within %.0f ms (the deglitch's %.1f ms maximum" % (dmax + fault.FAULT_BLANK_MS + scan, dmax) in fault_md
    # Every time on a line about the deglitch is one of these figures (or the charge it is weighed against).
    charge = power.switch_on(layout).longest_ms
    reported = dmax + fault.FAULT_BLANK_MS + scan
    known = (dmin, dtyp, dmax, fault.FAULT_BLANK_MS, reported, round(charge, 1), round(charge, 2))
    text = (REPO / "hardware" / layout.name / "power.md").read_text()
    for sentence in _sentences(text):
        if "deglitch" in sentence and "TPS2556" not in sentence and "tps2556" not in sentence:
            for ms in re.findall(r"(\d+(?:\.\d+)?) ms", sentence):
                assert float(ms) in known, sentence


def test_the_firmwares_blanking_lies_past_the_deglitch_and_the_charge() -> None:
    dmin, dtyp, dmax = power.FAULT_DEGLITCH_MS
    assert fault.FAULT_BLANK_MS == power.FAULT_BLANK_MS
    assert fault.FAULT_BLANK_MS > dmax
    slowest = max(power.switch_on(layouts.load_layout(name)).longest_ms for name in NAMES)
    fastest = min(power.switch_on(layouts.load_layout(name)).longest_ms for name in NAMES)
    # The firmware's comment quotes the datasheet's deglitch and the boards' charge range.
    source = " ".join((REPO / "firmware" / "lib" / "zuni_hw" / "fault.py").read_text().replace("#", " ").split())
    assert "(%g / %g / %g ms min / typ / max, TI SLVS841" % (dmin, dtyp, dmax) in source
    assert "the %.1f-%.1f ms charge" % (fastest, slowest) in source
    assert "(at most %g ms deglitch + %d ms + one scan)" % (dmax, fault.FAULT_BLANK_MS) in source
    readme = " ".join((REPO / "hardware" / "README.md").read_text().split())
    assert "deglitch, %g-%g ms, is longer than the %.1f-%.1f ms switch-on charge" % (dmin, dmax, fastest, slowest) in (
        readme
    )
