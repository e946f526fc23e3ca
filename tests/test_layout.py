"""course_lib is arranged by concern: small modules, imports that point down only (at module and
at function level) and never go round in a circle."""
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


# The layers of the course's design (shared/design/layout.md), bottom first: a module imports only from a
# lower layer or from its own folder. `bertscore` (the metric as taught) imports nothing above it; `call`
# (the resolved call: Setting, input checks, warnings) stands on it, beside the engine and below it.
# `course_lib` itself (score, BERTScorer, ...) sits above the engine;
# `learned` (chapter 10's metric) pools with the engine's loop (engine.pooling) and evaluates with
# evaluation/; it sits beside `teaching` and imports nothing of it.
# `notices` (warnings that point at the caller) and `caching` (the one cache helper) import nothing
# of the course: below everything.
LAYERS = {"notices": 0, "caching": 0, "paths": 1, "resources": 1, "model": 1, "bertscore": 2, "call": 3,
          "lexical": 4, "engine": 4, "course_lib": 5, "evaluation": 6, "teaching": 7, "learned": 7, "demo": 8,
          "course": 9}


def layer_of(module: str) -> int:
    parts = module.split(".")
    return LAYERS[parts[1] if len(parts) > 1 else parts[0]]


def imports_in(source: str, here: str, known: dict) -> set[str]:
    """The course_lib modules that the source of module `here` imports, at any level: at the
    top, and inside functions and classes (made only when called, but a dependency all the same);
    relative imports included."""
    deps = set()
    for node in ast.walk(ast.parse(source)):
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


def import_graph() -> dict[str, set[str]]:
    known = modules()
    graph = {}
    for name, path in known.items():
        here = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        graph[name] = imports_in(path.read_text(encoding="utf-8"), here, known) - {name}
    return graph


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Imports that go up a layer, or sideways into another folder of the same layer."""
    folder = lambda m: m.split(".")[:2]  # noqa: E731  (course_lib.demo.bench -> course_lib, demo)
    return [f"{a} -> {b}" for a, deps in sorted(graph.items()) for b in sorted(deps)
            if layer_of(b) > layer_of(a) or (layer_of(b) == layer_of(a) and folder(b) != folder(a))]


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
    graph = import_graph()
    assert len(graph) > 40 and graph["course_lib.engine.scorer"]  # the graph was really read
    assert "course_lib.course.checks" in graph["course_lib.course.checks.exercise"]  # relative imports too
    assert "course_lib.model" in graph["course_lib.bertscore.embeddings"]  # and imports inside functions
    assert find_cycle(graph) is None, f"import cycle: {' -> '.join(find_cycle(graph))}"


def test_floors_are_whole():
    """Every folder stands on a whole floor: no half floor that lets one folder import its neighbour."""
    assert all(type(floor) is int for floor in LAYERS.values()), LAYERS


def test_imports_point_down_only_at_every_level():
    assert set(LAYERS) - {"course_lib"} <= {m.split(".")[1] for m in modules() if "." in m}
    assert not upward_imports(import_graph()), f"imports that go up: {upward_imports(import_graph())}"


def test_a_planted_upward_import_inside_a_function_is_found():
    known, graph = modules(), import_graph()
    planted = "def plot(self):\n    from course_lib.teaching.plots import similarity_heatmap\n"
    graph["course_lib.engine.bertscorer"] |= imports_in(planted, "course_lib.engine.bertscorer", known)
    assert upward_imports(graph) == ["course_lib.engine.bertscorer -> course_lib.teaching.plots"]
    graph["course_lib.teaching.planted"] = {"course_lib.engine.scorer"}  # down: allowed
    graph["course_lib.engine.scorer"] |= {"course_lib.lexical.bleu"}  # sideways: not
    assert "course_lib.engine.scorer -> course_lib.lexical.bleu" in upward_imports(graph)


def test_the_cycle_finder_finds_a_planted_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_layer_is_decided_in_one_place():
    """`model.check_layer` (None -> the model's default layer, `model.default_layer`) is called by the
    Setting (`call.setting.resolve_setting`), by the taught `embed` (bertscore/ imports nothing above it)
    and by the demo's audience-worded wrapper (`demo.inputs.check_layer`) -- no other module decides a
    layer; below the setting a layer is a required argument. A source scan: a planted call elsewhere fails."""
    import re

    allowed = {"course_lib.model", "course_lib.call.setting", "course_lib.bertscore.embeddings",
               "course_lib.demo.inputs"}
    deciding = re.compile(r"(?<![\w.])(?:check_layer|default_layer|check_model_layer)\(|\.default_layer\b")
    found = {name for name, path in modules().items() if name not in allowed
             for line in path.read_text(encoding="utf-8").splitlines()
             if deciding.search(line) and not line.lstrip().startswith(("def ", "#"))
             and not (name.startswith("course_lib.demo.") and "check_layer(layer)" in line)}
    assert not found, f"modules that decide a layer themselves: {sorted(found)}"
    planted = "def f(model_type):\n    return default_layer(model_type)\n"
    assert deciding.search(planted.splitlines()[1])
