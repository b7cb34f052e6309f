"""The tests' one way to wait for something that has no event to wait on: a condition
polled until it holds, with a generous limit that only turns a hang into a failure (the
limit is never what a test measures)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(
    condition: Callable[[], T],
    what: str | Callable[[], str],
    timeout: float = 10.0,
    step: float | Callable[[], object] = 0.02,
) -> T:
    """Return ``condition()``'s first true value, trying again after each ``step``: a pause
    in seconds, or a call that waits by doing work (``lambda: session.pump(0.02)``). After
    ``timeout`` seconds: AssertionError "timed out waiting for WHAT" (``what`` may be a
    function, called then, to describe what was last seen)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(
                "timed out after %.0f s waiting for %s" % (timeout, what() if callable(what) else what)
            )
        if callable(step):
            step()
        else:
            time.sleep(step)
