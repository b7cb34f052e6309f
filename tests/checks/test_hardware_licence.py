"""hardware/ carries its licence whole: the notice, then the full CERN-OHL-S v2 text (a
notice alone does not give a builder the terms), and every generated document names it."""

from __future__ import annotations

import re

from zuniboard.hardware.fmt import LICENCE_NOTICE
from zuniboard.paths import HARDWARE_DIR


def test_licence_file_holds_the_full_text() -> None:
    text = (HARDWARE_DIR / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("SPDX-License-Identifier: CERN-OHL-S-2.0\n")
    assert "CERN Open Hardware Licence Version 2 - Strongly Reciprocal\n\n\nPreamble" in text
    # Every numbered section of the licence, in order, and its last clause.
    headings = re.findall(r"^(\d) [A-Z][A-Za-z ,]+$", text, flags=re.M)
    assert headings == ["1", "2", "3", "4", "5", "6", "7", "8"], headings
    for clause in ("1.13 'Convey' means", "3.3 You may Convey modified Covered Source", "8.6 This Licence"):
        assert clause in text, clause
    assert text.rstrip().endswith("specifically excluded.")


def test_generated_documents_carry_the_notice() -> None:
    for board in ("board25", "board25-matrix", "board49", "board168"):
        for name in ("mechanics.md", "assembly.md", "template.svg"):
            assert LICENCE_NOTICE in (HARDWARE_DIR / board / name).read_text(encoding="utf-8"), (board, name)
