"""The house's shape, checked: no import circle among voicehost's modules
(every import counts, inside a function and under TYPE_CHECKING too, as
lint-imports sees them), and no function longer than 60 lines but the
argument parser's table."""
from __future__ import annotations

import ast
from pathlib import Path

import grimp

PACKAGE = Path(__file__).resolve().parent.parent / "voicehost"
LONGEST = 60
TABLES = {("cli.py", "build_parser")}   # the argument parser: one table of commands and options


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, following = work[-1]
            step = next(following, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    work.append((step, iter(sorted(edges.get(step, ())))))
                elif step in stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_circle_finder_finds_a_circle_through_a_function_import():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_among_the_modules():
    graph = grimp.build_graph("voicehost", cache_dir=None)
    edges = {module: set(graph.find_modules_directly_imported_by(module)) for module in graph.modules}
    assert circles(edges) == []


def long_functions(folder: Path) -> list[str]:
    out = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > LONGEST and (path.name, node.name) not in TABLES:
                    out.append(f"{path.relative_to(folder)}:{node.lineno} {node.name} ({lines} lines)")
    return out


def test_no_function_over_sixty_lines(tmp_path):
    (tmp_path / "long.py").write_text("def f():\n" + "    x = 1\n" * LONGEST)
    assert long_functions(tmp_path) == ["long.py:1 f (61 lines)"]
    assert long_functions(PACKAGE) == []
