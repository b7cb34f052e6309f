"""CPython shim for the parts of MicroPython's ``micropython`` module that shared code uses.

Shared code writes ``from micropython import const``; on the board the compiler folds
the constants, here ``const`` is the identity. ``native`` and ``viper`` (the code
emitters of a function on the board) are identities too: the function runs as written.
Installed only into CPython environments.
"""

from collections.abc import Callable
from typing import TypeVar

_T = TypeVar("_T")
_F = TypeVar("_F", bound=Callable[..., object])


def const(value: _T) -> _T:
    return value


def native(function: _F) -> _F:
    return function


def viper(function: _F) -> _F:
    return function
