"""CPython shim for the parts of MicroPython's ``micropython`` module that shared code uses.

Shared code writes ``from micropython import const``; on the board the compiler folds
the constants, here ``const`` is the identity. Installed only into CPython environments.
"""

from typing import TypeVar

_T = TypeVar("_T")


def const(value: _T) -> _T:
    return value
