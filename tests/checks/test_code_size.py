"""Size limits (issue #25): no class over 300 lines, no function over 60, in firmware/,
host/ and tools/, unless EXCEPTIONS names it with its current size and a reason.

The table is a ratchet: an item that grows past its entry, or a new oversize item, fails;
so does an entry that is no longer needed or allows more than the item's size now, so the
table shrinks as code is split. Lines are counted as ``end_lineno - lineno + 1`` of the
``def`` or ``class`` (decorators not counted), the same measure as the lead's sizes.py.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ROOTS = ("firmware", "host", "tools")
CLASS_LIMIT = 300
FUNCTION_LIMIT = 60

# (path, qualified name) -> (allowed lines = the item's size now, why it is still over).
# A qualified name joins the enclosing classes and functions with dots.
EXCEPTIONS: dict[tuple[str, str], tuple[int, str]] = {
    ("firmware/lib/zuni/awith.py", "AwithGame"): (
        456,
        "move generation, push/pop, counts: per search node; a split costs heap",
    ),
    ("firmware/lib/zuni/awith.py", "AwithGame._gen"): (69, "hot: the move generator, a call per node on a 125 MHz M0+"),
    ("firmware/lib/zuni/awith.py", "AwithGame.push"): (73, "hot: push, run at every search node"),
    ("firmware/lib/zuni/line.py", "LineGame"): (
        372,
        "move generation, push/pop per search node; set-up code could move out",
    ),
    ("firmware/lib/zuni/linefast.py", "gen"): (89, "hot: the line games' move generator, a call per node"),
    ("firmware/lib/zuni_board/app.py", "BoardApp"): (
        304,
        "two more module functions moved Kolowis' heap edge past its 141 KiB test",
    ),
    ("firmware/lib/zuni_board/hint.py", "HintSearch"): (334, "the board's search generator and its per-node helpers"),
    ("firmware/lib/zuni_board/hint.py", "HintSearch._values"): (
        115,
        "hot: the per-node loop of the board's hint search",
    ),
    ("firmware/lib/zuni_board/linehint.py", "LineSearch"): (331, "the line games' native search on the board"),
    ("firmware/lib/zuni_board/linehint.py", "LineSearch._loop"): (
        170,
        "hot: the search loop itself, one frame for the whole search",
    ),
    ("firmware/lib/zuni_board/play.py", "Play"): (
        326,
        "the hint in a class of its own moved the 4-player heap edge 142->144 KiB",
    ),
    ("host/zuniboard/ai/search_tree.py", "AlphaBeta._negamax"): (80, "hot: the host search's negamax, kept whole"),
    ("host/zuniboard/ai/tablebase.py", "_graph"): (100, "hot: the table builder's loop over every position"),
}


def _measure(path: Path, relative: str) -> dict[tuple[str, str], tuple[int, int, str]]:
    """(path, qualified name) -> (lines, limit, kind) of every class and function in the file."""
    found: dict[tuple[str, str], tuple[int, int, str]] = {}

    def visit(statements: list[ast.stmt], prefix: str) -> None:
        # Definitions are statements: walk statement lists only, not every expression (fast).
        for child in statements:
            if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                assert child.end_lineno is not None
                lines = child.end_lineno - child.lineno + 1
                is_class = isinstance(child, ast.ClassDef)
                key = (relative, name)
                # A name defined twice (a fallback under ``if``/``try``): keep the larger.
                if key not in found or found[key][0] < lines:
                    found[key] = (
                        lines,
                        CLASS_LIMIT if is_class else FUNCTION_LIMIT,
                        "class" if is_class else "function",
                    )
                visit(child.body, name + ".")
                continue
            for field in ("body", "orelse", "finalbody"):
                block = getattr(child, field, None)
                if isinstance(block, list):
                    visit(block, prefix)
            for part in getattr(child, "handlers", []) + getattr(child, "cases", []):
                visit(part.body, prefix)

    visit(ast.parse(path.read_text(encoding="utf-8"), str(path)).body, "")
    return found


def measure_repo(repo: Path = REPO) -> dict[tuple[str, str], tuple[int, int, str]]:
    found: dict[tuple[str, str], tuple[int, int, str]] = {}
    for root in ROOTS:
        for path in sorted((repo / root).rglob("*.py")):
            relative = path.relative_to(repo).as_posix()
            found.update(_measure(path, relative))
    return found


def oversize(repo: Path = REPO) -> dict[tuple[str, str], tuple[int, int, str]]:
    return {key: item for key, item in measure_repo(repo).items() if item[0] > item[1]}


def problems(
    over: dict[tuple[str, str], tuple[int, int, str]],
    exceptions: dict[tuple[str, str], tuple[int, str]],
) -> list[str]:
    """One line for each item that is new or grew and for each entry that is stale."""
    found: list[str] = []
    for (path, name), (lines, limit, kind) in sorted(over.items()):
        if (path, name) not in exceptions:
            found.append("NEW: %s %s %s is %d lines (limit %d): split it" % (kind, path, name, lines, limit))
        elif lines > exceptions[(path, name)][0]:
            allowed = exceptions[(path, name)][0]
            found.append("GREW: %s %s %s is %d lines, allowed %d: split it" % (kind, path, name, lines, allowed))
    for (path, name), (allowed, _reason) in sorted(exceptions.items()):
        if (path, name) not in over:
            found.append("STALE: %s %s is within its limit now (or gone): remove its entry" % (path, name))
        elif over[(path, name)][0] < allowed:
            found.append(
                "STALE: %s %s is %d lines, allowed %d: lower its entry to %d"
                % (path, name, over[(path, name)][0], allowed, over[(path, name)][0])
            )
    return found


def test_no_oversize_class_or_function_outside_the_exceptions() -> None:
    found = problems(oversize(), EXCEPTIONS)
    assert not found, "size limits (issue #25), %d problem(s):\n%s" % (len(found), "\n".join(found))


def test_every_exception_has_a_one_line_reason() -> None:
    for (path, name), (_allowed, reason) in EXCEPTIONS.items():
        assert reason.strip() and "\n" not in reason and len(reason) <= 100, (path, name, reason)


def test_the_check_finds_new_grown_and_stale_items(tmp_path: Path) -> None:
    tool = tmp_path / "tools"
    tool.mkdir()
    body = "".join("    x = %d\n" % i for i in range(60))
    (tool / "m.py").write_text(
        "class C:\n    def long(self):\n%s\n    def short(self):\n        pass\n\ndef f():\n%s"
        % (body.replace("    ", "        "), body),
        encoding="utf-8",
    )
    over = oversize(tmp_path)
    assert over == {("tools/m.py", "C.long"): (61, 60, "function"), ("tools/m.py", "f"): (61, 60, "function")}
    exceptions = {
        ("tools/m.py", "C.long"): (60, "grew"),
        ("tools/m.py", "C.short"): (61, "stale: no longer over"),
        ("tools/gone.py", "g"): (70, "stale: gone"),
    }
    found = problems(over, exceptions)
    assert found == [
        "GREW: function tools/m.py C.long is 61 lines, allowed 60: split it",
        "NEW: function tools/m.py f is 61 lines (limit 60): split it",
        "STALE: tools/gone.py g is within its limit now (or gone): remove its entry",
        "STALE: tools/m.py C.short is within its limit now (or gone): remove its entry",
    ], found
    exceptions = {("tools/m.py", "C.long"): (70, "allows more than needed"), ("tools/m.py", "f"): (61, "tight")}
    assert problems(over, exceptions) == ["STALE: tools/m.py C.long is 61 lines, allowed 70: lower its entry to 61"]


def table_text() -> str:
    """The EXCEPTIONS table for the tree as it is: the entries still needed at today's sizes
    with their reasons, a new item with an empty reason (the test above fails until it has
    one). ``python tests/checks/test_code_size.py`` prints it, to paste over the table."""
    lines = []
    for (path, name), (size, _limit, _kind) in sorted(oversize().items()):
        reason = EXCEPTIONS.get((path, name), (0, ""))[1]
        lines.append("    (%s, %s): (%d, %s)," % (json.dumps(path), json.dumps(name), size, json.dumps(reason)))
    return "\n".join(lines)


if __name__ == "__main__":
    print(table_text())
