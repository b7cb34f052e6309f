"""Runs before main.py and, on a cold boot, before USB enumerates: ask the host for the
USB current the layout's ``power.usb_ma`` names (hardware/<board>/power.md argues it).

Only the JSON is read here (not the full layout check), to keep boot fast and small;
main.py loads and checks the layout again."""

import json
import sys

if sys.platform == "rp2":
    try:
        with open("/layout.json") as f:
            usb_ma = json.load(f).get("power", {}).get("usb_ma", 250)
        from zuni_hw.pico import request_usb_power

        request_usb_power(usb_ma)
    except Exception as e:  # never stop the board from booting: main.py reports layout errors
        print("boot.py: USB power request skipped (%s)" % e)
