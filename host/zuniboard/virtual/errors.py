"""The virtual board's errors."""

from __future__ import annotations


class SimError(RuntimeError):
    """The virtual board did not start, died, or refused a control command."""


class FlashBusy(SimError):
    """Another process runs a virtual board on this flash image (two firmwares writing one
    littlefs image would each lose the other's games)."""
