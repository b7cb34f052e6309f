"""The host's layers (docs/architecture.md, "Layers"), read from the source with ``ast``:

    cli -> commands -> {play, remote, learn, replay, web, virtual, hardware, records, ai}
        -> {link, games} -> {paths, errors, oslock} -> the firmware's {zuni, zuni_link, zuni_board}

A module imports only from its own layer or a lower one; no import circle, between
modules or between the packages of a layer, counting the imports inside functions and
under ``TYPE_CHECKING`` too (an import put in a function to dodge a circle is still a
circle: the two modules cannot be understood apart). The firmware's shared packages never
import the host, and the firmware has no import circle either (zuni and zuni_link below
zuni_board, below the drivers of zuni_hw)."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HOST = REPO / "host"
FIRMWARE_LIB = REPO / "firmware" / "lib"

# Top to bottom; a group is the first name under zuniboard (a subpackage or a module).
# "" is zuniboard/__init__.py itself (__version__).
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"cli"}),
    frozenset({"commands"}),
    frozenset({"play", "remote", "learn", "replay", "web", "virtual", "hardware", "records", "ai"}),
    frozenset({"link", "games"}),
    frozenset({"paths", "errors", "oslock", ""}),
)
FIRMWARE_SHARED = ("zuni", "zuni_link", "zuni_board")
# The firmware's packages, bottom to top: the rules and the link codec know nothing of the
# board; the drivers (zuni_hw) sit on the board application.
FIRMWARE_LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"zuni_hw"}),
    frozenset({"zuni_board"}),
    frozenset({"zuni", "zuni_link"}),
)


def module_files(root: Path, package: str) -> dict[str, Path]:
    """Dotted module name -> file, for every module of ``package`` under ``root``."""
    out = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imported_modules(name: str, path: Path, known: Iterable[str]) -> set[str]:
    """The modules of ``known`` that module ``name`` (file ``path``) imports anywhere in its
    body: at the top, in functions, under ``if TYPE_CHECKING``, by ``importlib.import_module``
    of a literal name. ``from package import module`` counts as an import of the module."""
    known = set(known)
    is_package = path.name == "__init__.py"
    here = name.split(".") if is_package else name.split(".")[:-1]
    found: set[str] = set()

    def add(target: str) -> None:
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target:
            found.add(target)

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                full = "%s.%s" % (module, alias.name)
                add(full if full in known else module)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            add(node.args[0].value)
    found.discard(name)
    return found


def import_graph(root: Path, packages: Iterable[str]) -> dict[str, set[str]]:
    files: dict[str, Path] = {}
    for package in packages:
        files.update(module_files(root, package))
    return {name: imported_modules(name, path, files) for name, path in files.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        # Iterative: the graph is small, but recursion depth should not depend on it.
        work = [(node, iter(sorted(graph.get(node, ()))))]
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        while work:
            current, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[current] = min(low[current], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[current])
            if low[current] == index[current]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == current:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def group(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def layer(module: str) -> int:
    for depth, groups in enumerate(LAYERS):
        if group(module) in groups:
            return depth
    raise AssertionError("%s: not in any layer of LAYERS (place it in docs/architecture.md and here)" % module)


def host_graph() -> dict[str, set[str]]:
    return import_graph(HOST, ["zuniboard"])


def test_the_graph_is_read() -> None:
    graph = host_graph()
    # A few edges known to exist: the reader sees top-level, in-function and importlib imports.
    assert "zuniboard.link.port" in graph["zuniboard.link.client"]
    assert "zuniboard.web" in graph["zuniboard.commands.sim"]  # inside a function
    assert "zuniboard.commands.play" in graph["zuniboard.cli"] or graph["zuniboard.cli"] >= {"zuniboard.errors"}
    assert len(graph) > 70


def test_the_circle_finder_finds_circles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"f"}, "f": {"e"}, "g": set()}
    assert sorted(circles(graph)) == [["a", "b", "c"], ["e", "f"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_every_module_is_in_a_layer() -> None:
    for module in host_graph():
        layer(module)


def test_no_module_imports_a_higher_layer() -> None:
    graph = host_graph()
    upward = sorted(
        "%s (layer %d) imports %s (layer %d)" % (a, layer(a), b, layer(b))
        for a, targets in graph.items()
        for b in targets
        if layer(b) < layer(a)
    )
    assert upward == [], "\n".join(upward)


def test_no_import_circle_between_host_modules() -> None:
    found = circles(host_graph())
    assert found == [], "import circles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_no_import_circle_between_the_packages_of_a_layer() -> None:
    groups: dict[str, set[str]] = {}
    for a, targets in host_graph().items():
        groups.setdefault(group(a), set()).update(group(b) for b in targets if group(b) != group(a))
    found = circles(groups)
    assert found == [], "circles between packages:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_firmware_never_imports_the_host() -> None:
    files: dict[str, Path] = {}
    for package in FIRMWARE_SHARED:
        files.update(module_files(FIRMWARE_LIB, package))
    bad = []
    for name, path in files.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                bad += ["%s imports %s" % (name, n) for n in names if n.split(".")[0] == "zuniboard"]
    assert bad == [], "\n".join(bad)


def firmware_graph() -> dict[str, set[str]]:
    return import_graph(FIRMWARE_LIB, [*FIRMWARE_SHARED, "zuni_hw"])


def firmware_layer(module: str) -> int:
    for depth, packages in enumerate(FIRMWARE_LAYERS):
        if module.split(".")[0] in packages:
            return depth
    raise AssertionError(module)


def test_no_import_circle_in_the_firmware() -> None:
    graph = firmware_graph()
    assert "zuni_board.app" in graph and "zuni.core" in graph["zuni.line"]
    found = circles(graph)
    assert found == [], "import circles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_firmware_packages_import_downwards() -> None:
    upward = sorted(
        "%s imports %s" % (a, b)
        for a, targets in firmware_graph().items()
        for b in targets
        if firmware_layer(b) < firmware_layer(a)
    )
    assert upward == [], "\n".join(upward)
