"""No import cycle through the snapshot package: the import graph of clawd/ read from the source
(every import statement, those inside functions too, since a lazy import only hides a cycle).
Run as a script, it lists every cycle of the whole package."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "clawd"
CYCLE_FREE = ("clawd",)  # the whole package: no cycle, lazy imports included


def module_names(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _known(name: str, modules: dict) -> str | None:
    """The longest prefix of a dotted name that is a module of ours."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in modules:
            return prefix
    return None


def _targets(node: ast.AST, module: str, is_package: bool, modules: dict) -> list[str]:
    """The modules of ours one import statement loads."""
    if isinstance(node, ast.Import):
        return [t for t in (_known(a.name, modules) for a in node.names) if t]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:  # relative: counted from the importing module's package
        package = module.split(".")[: len(module.split(".")) - (0 if is_package else 1)]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join(package + ([base] if base else []))
    found = []
    for alias in node.names:
        target = _known(f"{base}.{alias.name}", modules) or _known(base, modules)
        if target:
            found.append(target)
    return found


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """module -> the modules of ours it imports, anywhere in its source."""
    modules = module_names(root)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            graph[name].update(t for t in _targets(node, name, is_package, modules) if t != name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for child in sorted(graph.get(node, ())):
            if child not in index:
                visit(child)
                low[node] = min(low[node], low[child])
            elif child in on_stack:
                low[node] = min(low[node], index[child])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph)))
    try:
        for node in sorted(graph):
            if node not in index:
                visit(node)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(found)


def _through(component: list[str], packages: tuple[str, ...]) -> bool:
    return any(m == p or m.startswith(p + ".") for m in component for p in packages)


def test_cycles_finds_a_cycle_hidden_by_a_lazy_import(tmp_path):
    package = tmp_path / "clawd"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from clawd import b\n")
    (package / "b.py").write_text("def late():\n    from . import a\n")
    (package / "c.py").write_text("import clawd.a\n")
    assert cycles(import_graph(package)) == [["clawd.a", "clawd.b"]]


def test_no_import_cycle_passes_through_the_snapshot_package():
    graph = import_graph()
    assert "clawd.page.snapshot.build" in graph  # the graph read the tree for real
    assert [c for c in cycles(graph) if _through(c, CYCLE_FREE)] == []


if __name__ == "__main__":
    for component in cycles(import_graph()):
        print(f"{len(component)}: " + " ".join(component))
