"""course_lib is arranged by concern: small modules, imports that never go round in a circle."""
import ast
from pathlib import Path

import course_lib

PACKAGE = Path(course_lib.__file__).parent
MAX_LINES = 310  # about 300: a module a student can read in one sitting


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def module_level_imports(path: Path, known: dict) -> set[str]:
    """The course_lib modules `path` imports when it is imported, relative imports included
    (imports inside functions, made only when called, do not count)."""
    deps = set()
    here = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:  # relative: from . import x, from ..y import z
                package = here.rsplit(".", 1)[0]  # a module's package, or an __init__'s own
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                module = f"{base}.{module}" if module else base
            if not module.startswith("course_lib"):
                continue
            for alias in node.names:
                full = f"{module}.{alias.name}"
                deps.add(full if full in known else module)
        elif isinstance(node, ast.Import):
            deps |= {a.name for a in node.names if a.name.startswith("course_lib")}
    return deps & set(known)


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt, path + [nxt])):
                return cycle
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start, [start])):
            return cycle
    return None


def test_no_module_is_longer_than_a_sitting():
    long = {name: n for name, path in modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"split these modules by concern: {long}"


def test_imports_never_go_round_in_a_circle():
    known = modules()
    graph = {name: module_level_imports(path, known) - {name} for name, path in known.items()}
    assert len(graph) > 40 and graph["course_lib.engine.scorer"]  # the graph was really read
    assert "course_lib.course.checks" in graph["course_lib.course.checks.ch01"]  # relative imports too
    assert find_cycle(graph) is None, f"import cycle: {' -> '.join(find_cycle(graph))}"


def test_the_cycle_finder_finds_a_planted_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
