"""Runs before main.py and, on a cold boot, before USB enumerates: ask the host for the
USB current the layout's ``power.usb_ma`` names (hardware/<board>/power.md argues it).

The figure comes from the layout packed by tools/deploy.py (``zuni_layout``, while it is
/layout.json's: ``zuni_board.packed``), else from the JSON alone (not the full
layout check), to keep boot fast and small; main.py loads and checks the layout."""

import sys

if sys.platform == "rp2":
    try:
        from zuni_board.packed import packed_layout

        packed = packed_layout("/layout.json", "zuni_layout")
        if packed is not None:
            usb_ma = packed.power["usb_ma"]  # kept imported: main.py's Board is made from it
        else:
            import json

            with open("/layout.json") as f:
                usb_ma = json.load(f).get("power", {}).get("usb_ma", 250)
        from zuni_hw.pico import request_usb_power

        request_usb_power(usb_ma)
    except Exception as e:  # never stop the board from booting: main.py reports layout errors
        print("boot.py: USB power request skipped (%s)" % e)
