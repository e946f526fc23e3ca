"""Which cells an exercise needs: `make check EX=N.M` runs only these, not the whole chapter.

The cells under the exercise's "### Exercise N.M" heading, the chapter's set-up cell, and, going
backwards, only the statements of earlier cells that define a name those cells read (found with
Python's ast); figures, prints and tables are left out.
"""
from __future__ import annotations

import ast
import builtins
import copy
import json
import re
from pathlib import Path


class Node(dict):
    """A notebook read as plain JSON, with nbformat's attribute access (`nb.cells`, `cell.source`):
    reading it needs no nbformat (whose JSON-schema import alone takes seconds)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    __setattr__ = dict.__setitem__


def _node(obj):
    if isinstance(obj, dict):
        return Node({k: _node(v) for k, v in obj.items()})
    return [_node(v) for v in obj] if isinstance(obj, list) else obj


def read_notebook(path: Path) -> Node:
    """The notebook at `path`, each cell's source as one string (as nbformat.read gives it)."""
    nb = _node(json.loads(Path(path).read_text(encoding="utf-8")))
    for cell in nb.cells:
        if isinstance(cell.source, list):
            cell.source = "".join(cell.source)
    return nb


def _python(source: str) -> ast.Module | None:
    """The cell's code as a syntax tree (IPython magics turned into Python first), or None."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        source = TransformerManager().transform_cell(source)
    except ImportError:  # pragma: no cover - IPython comes with jupyter
        pass
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


# Methods that change the object they are called on: `rows.append(x)` modifies `rows`.
_MUTATING = {"append", "extend", "insert", "update", "pop", "remove", "clear", "add", "discard", "setdefault",
             "sort", "reverse", "popitem", "fillna", "drop", "rename", "set_index", "reset_index", "sort_values"}


def _has_magics(source: str) -> bool:
    """True when IPython would rewrite the cell (%magics, !shell lines)."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # pragma: no cover
        return False
    return TransformerManager().transform_cell(source) != (source if source.endswith("\n") else source + "\n")


def _names(tree) -> tuple[set[str], set[str]]:
    """(names the code defines or modifies, names it reads). Names local to a function, a lambda or a
    comprehension (its parameters, what it assigns) are neither."""
    defined, used = set(), set()

    def scope(node, params: set[str], body) -> None:
        inner_used, local = set(), set()
        for child in body:
            inner_used |= _names(child)[1]
            # local: what the body binds by name (`x = ...`, `def f`, `import m`); `best[k] = v` or
            # `rows.append(v)` changes an outer object, which the function therefore reads
            local |= {n.id for n in ast.walk(child) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            local |= {n.name for n in ast.walk(child) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
            local |= {(a.asname or a.name).split(".")[0] for n in ast.walk(child)
                      if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
        used.update(inner_used - params - local)

    def visit(node) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
            params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
            for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
                visit(default)
            if isinstance(node, ast.Lambda):
                scope(node, params, [node.body])
                return
            defined.add(node.name)
            for decorator in node.decorator_list:
                visit(decorator)
            scope(node, params, node.body)
            return
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            targets = set()
            for gen in node.generators:
                visit(gen.iter)
                targets |= {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
            parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            parts += [cond for gen in node.generators for cond in gen.ifs]
            scope(node, targets, parts)
            return
        if isinstance(node, ast.Name):
            (defined if isinstance(node.ctx, (ast.Store, ast.Del)) else used).add(node.id)
        elif isinstance(node, ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, ast.Store):
            base = node.value
            while isinstance(base, (ast.Subscript, ast.Attribute)):
                base = base.value
            if isinstance(base, ast.Name):  # df["x"] = ... modifies df
                defined.add(base.id)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in _MUTATING and isinstance(node.func.value, ast.Name)):
            defined.add(node.func.value.id)  # rows.append(...) modifies rows
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return defined, used - set(dir(builtins))


def _rebinds(node) -> set[str]:
    """Names a top-level statement binds afresh (def, class, import, `name = ...`, `for name in`): what an earlier
    statement defined under these names is not needed after it."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.For)):  # a loop binds its targets before its body reads them
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        names = set()
        for target in targets:
            elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
            names |= {t.id for t in elements if isinstance(t, ast.Name)}
        return names
    return set()


def _reads(node) -> set[str]:
    """The names a top-level statement reads from before it: a loop's own targets are not among them."""
    reads = _names(node)[1]
    return reads - _rebinds(node) if isinstance(node, ast.For) else reads


def _reads_before(statements) -> set[str]:
    """The names a run of statements reads that it has not bound itself before reading them."""
    needed = set()
    for node in reversed(statements):
        needed -= _rebinds(node)
        needed |= _reads(node)
    return needed


def _keeps_state(node) -> bool:
    """A statement kept whatever it defines: it seeds a random generator."""
    return any(isinstance(n, ast.Call) and "seed" in (getattr(n.func, "attr", None) or getattr(n.func, "id", ""))
               for n in ast.walk(node))


def needed_statements(source: str, needed: set[str]) -> tuple[str, set[str]] | None:
    """The cell's top-level statements that define or modify a name in `needed` (and the statements
    those read, going backwards within the cell), as source, and the names they read; None when
    the cell cannot be sliced safely (IPython magics, a syntax error): then it runs whole."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    needed = set(needed)
    keep = []
    for node in reversed(tree.body):
        if _names(node)[0] & needed or _keeps_state(node):
            keep.append(node)
            needed -= _rebinds(node)
            needed |= _reads(node)
    lines = source.splitlines(keepends=True)
    text = "".join("".join(lines[n.lineno - 1:n.end_lineno]) for n in reversed(keep))
    return text, needed


def exercise_span(nb, exercise: str) -> list[int]:
    """Indices of the code cells under the heading "### Exercise <exercise>", up to the next heading or, where
    there is one, the last cell that calls a check."""
    heading = re.compile(rf"^#+\s*Exercise\s+{re.escape(exercise)}\b", re.M)
    start = next((i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and heading.search(c.source)),
                 None)
    if start is None:
        raise SystemExit(f"no \"### Exercise {exercise}\" heading in this notebook")
    span = []
    for i in range(start + 1, len(nb.cells)):
        cell = nb.cells[i]
        if cell.cell_type == "markdown" and re.search(r"^#", cell.source, re.M):
            break
        if cell.cell_type == "code":
            span.append(i)
    checks = [k for k, i in enumerate(span) if re.search(r"\bcheck_\w+\(", nb.cells[i].source)]
    return span[:checks[-1] + 1] if checks else span  # what follows the last check (the library's version) is not needed


def _calls_a_check(node) -> bool:
    return any(isinstance(n, ast.Call) and (getattr(n.func, "attr", None) or getattr(n.func, "id", "")).startswith("check")
               for n in ast.walk(node))


def without_displays(source: str) -> str:
    """The cell without its top-level expression statements (print(...), a table to display),
    unless they call a check: what the check needs, not what the student reads."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython magics: keep the cell as it is
        return source
    drop = [n for n in tree.body if isinstance(n, ast.Expr) and not _calls_a_check(n)]
    kept_lines = {line for n in tree.body if n not in drop for line in range(n.lineno, n.end_lineno + 1)}
    lines = source.splitlines(keepends=True)
    for node in reversed(drop):
        span = range(node.lineno, node.end_lineno + 1)
        if not kept_lines.intersection(span):  # not sharing a line with a kept statement
            del lines[node.lineno - 1:node.end_lineno]
    return "".join(lines)


def exercise_notebook(nb, exercise: str):
    """A copy of `nb` with only what exercise N.M needs: the set-up cell, the exercise's own cells
    without their display lines, and, going backwards, the statements of earlier cells that define
    a name something kept reads (a figure, a print, a table to look at are left out)."""
    nb = _node(copy.deepcopy(dict(nb)))
    own = exercise_span(nb, exercise)
    if not own:
        nb.cells = []
        return nb
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    sources = {i: nb.cells[i].source for i in code}
    for i in own:
        sources[i] = without_displays(sources[i])
    own_statements = []
    for i in own:
        tree = _python(sources[i])
        own_statements += tree.body if tree else []
    needed = _reads_before(own_statements)
    chosen = set(own) | set(code[:1])
    for i in reversed([i for i in code if i < min(own)]):
        if i == code[0]:
            tree = _python(sources[i])
            needed |= _names(tree)[1] if tree else set()
            continue
        sliced = None if _has_magics(sources[i]) else needed_statements(sources[i], needed)
        if sliced is None:  # magics or unparsable: run it whole, to be safe
            chosen.add(i)
            tree = _python(sources[i])
            needed |= _names(tree)[1] if tree else set()
            continue
        text, needed = sliced
        if text.strip():
            chosen.add(i)
            sources[i] = text
    for i in chosen:
        nb.cells[i].source = sources[i]
    nb.cells = [nb.cells[i] for i in sorted(chosen)]
    return nb


def cells_for_exercise(nb, exercise: str) -> list[int]:
    """The cells exercise N.M needs, in notebook order: its own code cells, the first code cell
    (set-up), and every earlier code cell that defines a name a chosen cell reads."""
    own = exercise_span(nb, exercise)
    if not own:  # a written exercise: nothing to run
        return []
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    chosen = set(own) | set(code[:1])
    trees = {i: _python(nb.cells[i].source) for i in code}
    needed = set()
    for i in chosen:
        needed |= _names(trees[i])[1] if trees[i] else set()
    for i in reversed([i for i in code if i < min(own)]):
        if trees[i] is None:  # unparsable: keep it, to be safe
            chosen.add(i)
            continue
        defined, used = _names(trees[i])
        if i in chosen or defined & needed:
            chosen.add(i)
            needed |= used
    return sorted(chosen)
