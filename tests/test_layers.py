"""The package's import layers (docs/developers.md, "Layout and layers"): what may import what.

Read from the source with ``ast`` (every ``import`` statement, also those inside
functions), so a lazy import cannot hide a layer violation, a back-arrow between the
floors of the estimator layer, or a circle.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "pu_lib"

#: layer -> top-level parts of pu_lib it holds: the library (estimators, data and evaluation,
#: shared helpers) and the workflow subpackage
LAYERS = {
    "estimators": {"trees", "baselines", "prior", "ensemble", "sar", "neural", "base", "base_learners", "oof",
                   "hist_boost", "utils", "calibration", "prior.diagnostic"},
    "data and evaluation": {"datasets", "labeling", "metrics", "model_selection"},
    "shared": {"_validation", "_seeding", "_io", "_logging", "_rounding", "_propensity", "_optional", "distributed",
               "_construct"},
    # pu_lib.workflow: the registry, experiments, reports, figures, statistics and the pu-lib
    # command line; the old top-level paths of five of them serve it with a FutureWarning
    "workflow": {"workflow", "registry", "reporting", "figures", "stats", "cli"},
}
#: modules that sit on a floor of their own, apart from their package: the prior
#: diagnostic runs prior estimators and a PU classifier side by side (a tool above both)
MODULE_PARTS = {"pu_lib.prior.diagnostic": "prior.diagnostic"}
#: layer -> layers it must not import: the library never imports the workflow subpackage;
#: the shared helpers import nothing above them
FORBIDDEN = {
    "estimators": {"workflow"},
    "data and evaluation": {"workflow"},
    "shared": {"workflow", "data and evaluation", "estimators"},
}
#: documented exceptions: (module, imported part) -> reason
ALLOWED: dict[tuple[str, str], str] = {}

#: floors of the estimator layer, lowest first: a module imports its own floor or lower ones
#: only (imports within a floor are allowed; no circle anywhere is checked below)
FLOORS: list[tuple[str, set[str]]] = [
    ("shared", LAYERS["shared"]),
    # what every estimator declares: the PU mixin and parameter constraints
    ("declarations", {"base"}),
    # supervised learners a PU method is built on, and the probabilities they give:
    # base_learners (factory, weighted logistic regression, clone / fit / class-1 helpers),
    # hist_boost (a base learner itself and oof's booster), oof (out-of-fold / held-out)
    ("base learners", {"base_learners", "hist_boost", "oof"}),
    # class-prior and label-frequency estimators (also the Elkan-Noto fit the classifier uses)
    ("prior", {"prior"}),
    # PU classifiers, which take a prior (a number, a prior estimator or its name); calibration
    # wraps any of them (PUCalibratedClassifier) and tabulates what their predict_proba returns
    ("families", {"trees", "baselines", "sar", "ensemble", "neural", "calibration"}),
    # checks for estimators (pu_lib.utils.estimator_checks): the PU classifier and prior
    # estimator base classes; the estimators themselves are given by the caller
    ("checks", {"utils"}),
    # tools that run estimators of several families: pu_lib.prior.diagnostic (prior
    # estimators side by side, and a PU classifier's prior sweep)
    ("tools", {"prior.diagnostic"}),
]


def _part(module: str) -> str | None:
    for mod, part in MODULE_PARTS.items():
        if module == mod or module.startswith(mod + "."):
            return part
    bits = module.split(".")
    return bits[1] if len(bits) > 1 and bits[0] == "pu_lib" else None


def _layer(part: str) -> str | None:
    for layer, parts in LAYERS.items():
        if part in parts:
            return layer
    return None


def _floor(part: str) -> int | None:
    for i, (_, parts) in enumerate(FLOORS):
        if part in parts:
            return i
    return None


def _imports(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            if node.module == "pu_lib":
                for a in node.names:
                    yield f"pu_lib.{a.name}"


def _modules():
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG.parent).with_suffix("")
        yield ".".join(rel.parts).removesuffix(".__init__"), path


# ----------------------------------------------------------------------------- import graph
@lru_cache(maxsize=1)
def _graph() -> dict[str, dict[str, int]]:
    """module -> {module it makes Python run: line of the import statement}, over every
    import statement of the package (also inside functions and relative ones). An import of
    ``pu_lib.a.b`` (or of a name from it) runs ``pu_lib.a.b`` and, first, the ``__init__``
    of every package above it that does not hold the importing module (those are already
    running); ``from pu_lib.a import name`` runs submodule ``pu_lib.a.name`` when there is one."""
    mods = dict(_modules())
    graph = {}
    for name, path in mods.items():
        pkg = name if path.name == "__init__.py" else name.rpartition(".")[0]
        out: dict[str, int] = {}
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    bits = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                    base = ".".join(bits + ([node.module] if node.module else []))
                else:
                    base = node.module
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            else:
                continue
            for target in targets:
                if target != "pu_lib" and not target.startswith("pu_lib."):
                    continue
                while target not in mods:
                    target = target.rpartition(".")[0]
                bits = target.split(".")
                for i in range(2, len(bits) + 1):
                    ran = ".".join(bits[:i])
                    if ran in mods and ran != name and not name.startswith(ran + "."):
                        out.setdefault(ran, node.lineno)
        graph[name] = out
    return graph


def find_cycle(graph: dict[str, dict[str, int]]) -> list[str] | None:
    """One circle of ``graph`` as ``[a, b, ..., a]``, or None (iterative depth-first search)."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    for root in sorted(graph):
        if root in state:
            continue
        path, stack = [root], [iter(sorted(graph[root]))]
        state[root] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(graph.get(nxt, {}))))
    return None


# ----------------------------------------------------------------------------- tests
def test_every_part_of_the_package_belongs_to_a_layer():
    parts = {p.stem if p.is_file() else p.name for p in PKG.iterdir()
             if (p.suffix == ".py" and p.stem != "__init__") or (p.is_dir() and (p / "__init__.py").exists())}
    unassigned = sorted(p for p in parts if _layer(p) is None)
    assert unassigned == [], f"assign these to a layer in tests/test_layers.py and docs/developers.md: {unassigned}"


def test_every_part_of_the_estimator_layer_is_on_one_floor():
    counts = {p: sum(p in parts for _, parts in FLOORS) for p in LAYERS["estimators"]}
    assert {p for p, n in counts.items() if n != 1} == set(), \
        "put each estimator part on exactly one floor in tests/test_layers.py and docs/developers.md"


@pytest.mark.parametrize("module,path", list(_modules()), ids=lambda v: v if isinstance(v, str) else "")
def test_module_imports_respect_the_layers(module, path):
    own = _part(module)
    if own is None:
        return
    layer = _layer(own)
    bad = []
    for imp in _imports(path):
        part = _part(imp)
        if part is None or part == own:
            continue
        other = _layer(part)
        if other in FORBIDDEN.get(layer, set()) and (module, part) not in ALLOWED:
            bad.append(f"{imp} ({other})")
    assert bad == [], f"{module} ({layer}) imports {bad}"


def test_estimator_floors_are_imported_downwards_only():
    """No back-arrow: a module of the estimator layer or of the shared layer imports only
    modules of its own floor or of lower floors (docs/developers.md, "Layout and layers")."""
    bad = []
    for module, targets in sorted(_graph().items()):
        own = _part(module)
        if own is None or _floor(own) is None:
            continue
        for target, line in sorted(targets.items()):
            part = _part(target)
            if part is not None and _floor(part) is not None and _floor(part) > _floor(own):
                bad.append(f"{module}:{line} imports {target} "
                           f"({FLOORS[_floor(own)][0]} -> {FLOORS[_floor(part)][0]})")
    assert bad == [], "imports from a lower floor to a higher one:\n" + "\n".join(bad)


def test_no_import_circle_in_the_package():
    """No circle among the package's modules, counting imports inside functions: then no
    import has to be made lazy to avoid a circular import (a local import of a pu_lib module
    only defers loading a heavy or optional dependency)."""
    graph = _graph()
    cycle = find_cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(
        f"{a} (line {graph[a][b]})" for a, b in zip(cycle, cycle[1:])) + f" -> {cycle[-1]}"


def _string_edges() -> dict[str, set[str]]:
    """module -> the modules named in it as "module:Class" strings that are resolved with
    importlib (the workflow's method registry, the prior names of pu_lib.prior): an edge
    as real as an import statement, taken only when the name is used."""
    from pu_lib.workflow import registry
    from pu_lib.prior._names import PRIOR_ESTIMATORS

    mods = dict(_modules())

    def module_of(target, source):
        mod = target.split(":")[0]
        while mod not in mods:
            mod = mod.rpartition(".")[0]
        # running pu_lib.a.b runs the __init__ of pu_lib.a first, unless it holds the source
        bits = mod.split(".")
        ran = {".".join(bits[:i]) for i in range(2, len(bits) + 1)}
        return {r for r in ran if r in mods and not source.startswith(r + ".")}

    tables = {"pu_lib.workflow.registry": [m.target for m in registry.METHODS.values()],
              "pu_lib.prior._names": [t for t, _ in PRIOR_ESTIMATORS.values()]}
    return {src: set().union(*(module_of(t, src) for t in targets)) for src, targets in tables.items()}


def test_no_circle_counting_the_name_tables_as_imports():
    """The registry's and the prior names' "module:Class" strings counted as imports: still
    no circle (no estimator reaches the registry, and a prior name never leads back to the
    module that resolves it)."""
    graph = {m: dict(t) for m, t in _graph().items()}
    for module, targets in _string_edges().items():
        for target in targets - {module}:
            graph[module].setdefault(target, 0)
    cycle = find_cycle(graph)
    assert cycle is None, "import circle through a name table: " + " -> ".join(cycle)


def test_no_library_module_imports_the_workflow_subpackage():
    """No module of the library (estimators, data, evaluation, shared helpers) imports
    pu_lib.workflow (the registry, experiments, reports, the command line), not even inside
    a function."""
    bad = [f"{m}:{line} imports {t}" for m, targets in sorted(_graph().items())
           if _layer(_part(m) or "") != "workflow"
           for t, line in targets.items() if t == "pu_lib.workflow" or t.startswith("pu_lib.workflow.")]
    assert bad == [], "library modules importing the workflow subpackage:\n" + "\n".join(bad)


def test_the_old_paths_serve_the_moved_modules_with_a_warning():
    """pu_lib.stats, pu_lib.reporting, pu_lib.figures, pu_lib.registry and pu_lib.cli are
    the modules of pu_lib.workflow, with a FutureWarning naming the new path."""
    import importlib
    import sys

    for name in ("stats", "reporting", "figures", "registry", "cli"):
        sys.modules.pop(f"pu_lib.{name}", None)
        with pytest.warns(FutureWarning, match=f"pu_lib.workflow.{name}"):
            old = importlib.import_module(f"pu_lib.{name}")
        assert old is importlib.import_module(f"pu_lib.workflow.{name}")


def test_the_checks_see_a_circle_and_a_package_init():
    """The circle search and the graph can fail: a circle through a package's __init__."""
    assert find_cycle({"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3}, "d": {"a": 4}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b": 1}, "b": {}, "c": {"a": 2, "b": 3}}) is None
    graph = _graph()
    # importing one prior estimator runs the prior package's __init__, which imports them all
    assert "pu_lib.prior" in graph["pu_lib.baselines.elkan_noto"]
    assert "pu_lib.prior.elkan_noto" in graph["pu_lib.prior"]
    # a function-local import counts
    assert "pu_lib.hist_boost" in graph["pu_lib.base_learners._factory"]
