"""How numbers and text are written into generated files: fixed decimals, so that
regeneration gives the same bytes, and the escapes of XML and CSV."""

from __future__ import annotations

# The notice every generated document of hardware/ carries (CERN-OHL-S v2, section 1.10).
LICENCE_NOTICE = "Licence: CERN-OHL-S-2.0 (hardware/LICENSE); source location: this repository, folder hardware/."


def num(value: float) -> str:
    """At most two decimals, trailing zeros dropped; never "-0"."""
    text = "%.2f" % value
    text = text.rstrip("0").rstrip(".") if "." in text else text
    return "0" if text == "-0" else text


def xml_text(text: str) -> str:
    """Text or an attribute value in SVG (and any XML)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def csv_cell(value: str) -> str:
    """One CSV field: quoted when it holds a comma, a quote or a line break."""
    if any(c in value for c in ',"\n'):
        return '"' + value.replace('"', '""') + '"'
    return value
