"""The package's import layers (docs/developers.md, "Layout and layers"): what may import what.

Read from the source with ``ast`` (every ``import`` statement, also those inside
functions), so a lazy import cannot hide a layer violation.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "pu_lib"

#: layer -> top-level parts of pu_lib it holds
LAYERS = {
    "estimators": {"trees", "baselines", "prior", "ensemble", "sar", "base", "base_estimators", "registry", "oof", "hist_boost"},
    "data": {"datasets", "labeling"},
    "evaluation": {"metrics", "stats", "reporting", "figures"},
    "workflow": {"experiments"},
    "shared": {"_validation", "_seeding", "_io", "_logging", "_rounding", "_propensity", "_optional", "distributed"},
}
#: layer -> layers it must not import
FORBIDDEN = {
    # estimators may use the metric functions (PULSNAR's Algorithm 5 reports them) but never
    # the workflow layer nor the data layer (they take arrays, not data sets or label files)
    "estimators": {"workflow", "data"},
    "data": {"workflow", "evaluation"},
    "evaluation": {"workflow"},
    "shared": {"workflow", "evaluation", "data", "estimators"},
}
#: documented exceptions: (module, imported part) -> reason
ALLOWED: dict[tuple[str, str], str] = {}


def _part(module: str) -> str | None:
    bits = module.split(".")
    return bits[1] if len(bits) > 1 and bits[0] == "pu_lib" else None


def _layer(part: str) -> str | None:
    for layer, parts in LAYERS.items():
        if part in parts:
            return layer
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


def test_every_part_of_the_package_belongs_to_a_layer():
    parts = {p.stem if p.is_file() else p.name for p in PKG.iterdir()
             if (p.suffix == ".py" and p.stem != "__init__") or (p.is_dir() and (p / "__init__.py").exists())}
    unassigned = sorted(p for p in parts if _layer(p) is None)
    assert unassigned == [], f"assign these to a layer in tests/test_layers.py and docs/developers.md: {unassigned}"


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
