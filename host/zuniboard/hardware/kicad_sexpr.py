"""KiCad's s-expression files: read and write them as nested lists.

An atom written without quotes (a keyword or a number: ``pad``, ``1.27``) becomes a
``Sym``; a quoted string stays a ``str``. ``dump`` writes them back the way KiCad does
(one child list per line, tab indented), so a generated file diffs well and a stock
symbol or footprint copied through here keeps its meaning.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Union

Node = Union["Sym", str, list["Node"]]


class Sym(str):
    """An unquoted atom: a keyword or a number."""

    __slots__ = ()


class SexprError(ValueError):
    """A file that is not a well-formed s-expression; names the offset."""


def _tokens(text: str) -> Iterator[tuple[int, str, bool]]:
    """(offset, text, quoted) for every token; parentheses as themselves."""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "()":
            yield i, ch, False
            i += 1
        elif ch.isspace():
            i += 1
        elif ch == '"':
            j = i + 1
            buf: list[str] = []
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n:
                    j += 1
                    buf.append({"n": "\n", "t": "\t"}.get(text[j], text[j]))
                else:
                    buf.append(text[j])
                j += 1
            if j >= n:
                raise SexprError("unterminated string at offset %d" % i)
            yield i, "".join(buf), True
            i = j + 1
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in '()"':
                j += 1
            yield i, text[i:j], False
            i = j


def parse(text: str) -> list[Node]:
    """The first top-level list of ``text``."""
    stack: list[list[Node]] = []
    top: list[Node] | None = None
    for offset, token, quoted in _tokens(text):
        if not quoted and token == "(":
            node: list[Node] = []
            if stack:
                stack[-1].append(node)
            stack.append(node)
        elif not quoted and token == ")":
            if not stack:
                raise SexprError("unbalanced ')' at offset %d" % offset)
            done = stack.pop()
            if not stack:
                top = done
                break
        else:
            if not stack:
                raise SexprError("atom outside a list at offset %d" % offset)
            stack[-1].append(token if quoted else Sym(token))
    if top is None:
        raise SexprError("no complete list in the text")
    return top


def _atom(value: Node) -> str:
    if isinstance(value, Sym):
        return str(value)
    assert isinstance(value, str)
    return '"%s"' % value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def dump(node: Node, indent: int = 0) -> str:
    """KiCad's layout: a list whose children are all atoms on one line, else one child
    list per line."""
    if not isinstance(node, list):
        return _atom(node)
    atoms = [c for c in node if not isinstance(c, list)]
    if len(atoms) == len(node):
        return "(" + " ".join(_atom(c) for c in node) + ")"
    pad = "\t" * (indent + 1)
    head = []
    rest: list[str] = []
    for child in node:
        if isinstance(child, list) or rest:
            rest.append(pad + dump(child, indent + 1))
        else:
            head.append(_atom(child))
    return "(" + " ".join(head) + "\n" + "\n".join(rest) + "\n" + "\t" * indent + ")"


def num(value: float) -> Sym:
    """A coordinate as KiCad writes it: at most 4 decimals, no trailing zeros."""
    text = "%.4f" % value
    text = text.rstrip("0").rstrip(".")
    return Sym("0" if text in ("-0", "") else text)


def find(node: list[Node], key: str) -> list[Node] | None:
    """The first child list whose head is ``key``."""
    for child in node:
        if isinstance(child, list) and child and child[0] == key:
            return child
    return None


def find_all(node: list[Node], key: str) -> list[list[Node]]:
    return [c for c in node if isinstance(c, list) and c and c[0] == key]


def to_float(node: Node) -> float:
    """An atom read as a number (a coordinate, a size)."""
    if isinstance(node, list):
        raise SexprError("a list where a number belongs: %s" % dump(node)[:60])
    return float(node)
