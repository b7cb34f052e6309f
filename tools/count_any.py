"""Counts ``Any`` in the host's type expressions, read with ``ast`` (not grep: a word in a
comment or a docstring is no ``Any``, and one line can hold several).

Counted: every ``Any`` name (or ``typing.Any``, or a name ``Any`` was imported as) inside
an annotation (arguments, returns, annotated assignments, quoted annotations parsed),
the first argument of ``cast(...)``, a type alias (``X = dict[str, Any]``, ``X:
TypeAlias = ...``, ``type X = ...``) and any other type expression outside an import
(a class's generic base, ``list[Any]()``, a ``TypeVar`` bound): moving an ``Any`` from
an annotation into one of those does not hide it.

    python tools/count_any.py [--top N] [ROOT]

prints the total, the count by kind and the files with the most.
tests/checks/test_code_checks.py holds the total under its committed ceiling.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
KINDS = ("annotation", "cast", "alias", "other")


@dataclass
class Counts:
    """``Any`` counted per file and per kind."""

    by_file: Counter[str] = field(default_factory=Counter)
    by_kind: Counter[str] = field(default_factory=Counter)

    @property
    def total(self) -> int:
        return sum(self.by_kind.values())


class _Finder(ast.NodeVisitor):
    """Finds the ``Any`` of one module and says in what kind of place each stands."""

    def __init__(self) -> None:
        self.any_names = {"Any"}  # names bound to typing.Any (from typing import Any as A)
        self.typing_modules = {"typing", "typing_extensions"}  # import typing as t
        self.found: Counter[str] = Counter()
        self._seen: set[int] = set()  # nodes counted already (a node counts once)

    # -- what is an Any ----------------------------------------------------------------
    def _is_any(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.any_names
        if isinstance(node, ast.Attribute) and node.attr == "Any":
            return isinstance(node.value, ast.Name) and node.value.id in self.typing_modules
        return False

    def _count(self, node: ast.AST | None, kind: str) -> None:
        """Counts every Any in the expression ``node`` (quoted parts parsed) as ``kind``."""
        if node is None:
            return
        for sub in ast.walk(node):
            if id(sub) in self._seen:
                continue
            self._seen.add(id(sub))
            if self._is_any(sub):
                self.found[kind] += 1
            elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                try:
                    quoted = ast.parse(sub.value, mode="eval")
                except SyntaxError:
                    continue  # a plain string (a Literal's value), not a type
                self._count(quoted.body, kind)

    # -- imports -----------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name in ("typing", "typing_extensions"):
                self.typing_modules.add(alias.asname or alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module in ("typing", "typing_extensions"):
            for alias in node.names:
                if alias.name == "Any":
                    self.any_names.add(alias.asname or "Any")

    # -- the places ----------------------------------------------------------------------
    def _arguments(self, args: ast.arguments) -> None:
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
            if arg is not None:
                self._count(arg.annotation, "annotation")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._arguments(node.args)
        self._count(node.returns, "annotation")
        self.generic_visit(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._arguments(node.args)
        self._count(node.returns, "annotation")
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._count(node.annotation, "annotation")
        if _names_type_alias(node.annotation):
            self._count(node.value, "alias")
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        if _looks_like_type(node.value):
            self._count(node.value, "alias")
        self.generic_visit(node)

    def visit_TypeAlias(self, node: ast.TypeAlias) -> None:
        self._count(node.value, "alias")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name == "cast" and node.args:
            self._count(node.args[0], "cast")
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if id(node) not in self._seen and node.id in self.any_names:
            self._seen.add(id(node))
            self.found["other"] += 1

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if id(node) not in self._seen and self._is_any(node):
            self._seen.add(id(node))
            self.found["other"] += 1
            return
        self.generic_visit(node)


def _names_type_alias(annotation: ast.expr) -> bool:
    """``X: TypeAlias = ...`` (or ``typing.TypeAlias``)."""
    if isinstance(annotation, ast.Name):
        return annotation.id == "TypeAlias"
    return isinstance(annotation, ast.Attribute) and annotation.attr == "TypeAlias"


def _looks_like_type(value: ast.expr) -> bool:
    """A plain assignment that makes a type alias: ``dict[str, Any]``, ``A | B``, ``Any``."""
    return isinstance(value, (ast.Subscript, ast.BinOp, ast.Name, ast.Attribute))


def count_file(path: Path) -> Counter[str]:
    """The ``Any`` of one file, per kind."""
    finder = _Finder()
    finder.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    return finder.found


def count_tree(root: Path) -> Counts:
    """The ``Any`` of every ``.py`` and ``.pyi`` file under ``root``."""
    counts = Counts()
    for path in sorted([*root.rglob("*.py"), *root.rglob("*.pyi")]):
        found = count_file(path)
        name = path.relative_to(root.parent).as_posix()
        if found:
            counts.by_file[name] += sum(found.values())
            counts.by_kind.update(found)
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", type=Path, default=REPO / "host")
    parser.add_argument("--top", type=int, default=15, help="how many files to list (default 15)")
    options = parser.parse_args(argv)
    counts = count_tree(options.root.resolve())
    print("Any in %s type expressions: %d" % (options.root, counts.total))
    print("  " + ", ".join("%s %d" % (kind, counts.by_kind[kind]) for kind in KINDS))
    for name, n in counts.by_file.most_common(options.top):
        print("%6d  %s" % (n, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
