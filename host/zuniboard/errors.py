"""Errors the host reports to the user."""

from __future__ import annotations


class UsageError(Exception):
    """Bad input from the command line: printed as `zuni: error: ...`, exit status 2."""
