"""Code hashes: the pu_lib source files a workflow job's results depend on.

A result must be recomputed when the code that produced it changed. The rules that
compute results take a parameter ``code_hash`` (Snakemake reruns a job whose parameters
changed): a hash of the pu_lib source files that the job can execute, so that editing
the PU Hellinger trees reruns the PU Hellinger fits but no PULSNAR fit.

Which files (the sources a method uses, not the whole package: with a whole-package
hash a comment in one estimator would rerun every fit of every paper):

* the **import closure** of a job's root modules, found statically with :mod:`ast`
  over the package's ``*.py`` files. Every ``import`` / ``from ... import`` of a pu_lib
  module anywhere in a module (also inside functions: the library imports its heavy
  parts where they are used) is followed. A name imported from a package
  (``from pu_lib.prior import resolve_prior``) is followed to the submodule that defines
  it through the package's ``__init__`` re-exports, so that importing one name does not
  pull in every sibling module; a package ``__init__`` that Python runs on the way (the
  ancestors of every module in the closure) counts by its own bytes only.
  Modules imported by name strings (:mod:`pu_lib.workflow.registry` imports the estimator
  classes with :func:`importlib.import_module`) are not followed: each job names the
  estimators it uses as roots (:func:`fit_roots`).
* package data files that a module in the closure names by a string literal
  (``registry.json`` of :mod:`pu_lib.datasets.registry`).

Not hashed: ``__pycache__`` (bytecode and numba's cache files), anything that is not a
``.py`` file or such a data file, and the workflow's scripts (Snakemake's own ``code``
rerun trigger covers them). Third-party packages are not hashed either (their versions
belong to the software environment).

The hash is the first 16 hex digits of the sha256 over the sorted lines
``<path relative to the package's parent>\\0<sha256 of the file bytes>``: the same on
every machine and in every checkout or copy of the same sources.

The runner dispatches to code that only some jobs run -- classifier or class-prior
scoring, per-round curves, PULSNAR's calibration evaluation, bootstrap intervals -- so
those modules (:data:`DISPATCHED`) are only part of a closure when a job's roots name
them.
"""

from __future__ import annotations

import ast
import functools
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["DISPATCHED", "RULE_ROOTS", "code_files", "code_hash", "fit_code_hash", "fit_roots", "rule_code_hash"]

PACKAGE = "pu_lib"
RUNNER = "pu_lib.workflow.experiments.runner"

#: modules the runner imports only for some jobs; a closure includes them only when a
#: root names them (:func:`fit_roots` decides from the method and the experiment)
DISPATCHED = frozenset({
    "pu_lib.workflow.experiments.classifier_eval",
    "pu_lib.workflow.experiments.prior_eval",
    "pu_lib.workflow.experiments.curves",
    "pu_lib.prior.evaluation",
    "pu_lib.prior.bootstrap",
})

#: roots of the other rules that compute results, by root group. ``labels``: the
#: runner's label-set code (the runner file itself counts by its bytes; its fit-and-score
#: imports are left out, they make no label set). ``report``: rules ``tables`` and
#: ``stats``; ``prior_report``: ``prior_estimates``, ``calibration_curves`` and
#: ``classification_with_prior``; the others are the rules of the same name. Not hashed:
#: ``dataset`` (its output is checked against the registry's content fingerprint, and
#: the registry file is part of every closure that reads datasets) and ``aggregate``
#: (it concatenates and checks rows; it computes nothing).
RULE_ROOTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # group: (roots followed through their imports, files counted by their bytes only)
    "labels": (("pu_lib.labeling", "pu_lib.datasets", "pu_lib._seeding", "pu_lib._io"), (RUNNER,)),
    "report": (("pu_lib.workflow.reporting", "pu_lib.workflow.stats", "pu_lib.workflow.figures"), ()),
    "prior_report": (("pu_lib.workflow.experiments.prior_report",), ()),
    "curves": (("pu_lib.workflow.experiments.curves",), ()),
    "sweep": (("pu_lib.workflow.experiments.sweep",), ()),
    "importance_maps": (("pu_lib.trees.importance_maps",), ()),
    "half_moons": (("pu_lib.workflow.experiments.half_moons",), ()),
    "scorecard": (("pu_lib.workflow.experiments.scorecard",), ()),
}


def package_dir() -> Path:
    """The directory of the pu_lib package in use (the one this module was imported from)."""
    return Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------- parsing
@dataclass
class _Module:
    name: str
    path: Path
    is_package: bool
    #: (module named by the statement, imported names or None for ``import x``) of every
    #: import statement anywhere in the module, absolute
    imports: list = field(default_factory=list)
    #: top-level bindings made by import statements: name -> (module, attribute or None)
    bindings: dict = field(default_factory=dict)
    #: names of the non-Python files beside the module that its source quotes (candidate
    #: package data files)
    strings: set = field(default_factory=set)


class _Package:
    """Parsed modules of one copy of the package (files read once per instance)."""

    def __init__(self, root: Path):
        self.root = Path(root).resolve()  # the package directory (.../pu_lib)
        self.base = self.root.parent
        self._modules: dict[str, _Module | None] = {}
        # per-name results: every closure of one invocation walks mostly the same modules
        self._files: dict[str, Path | None] = {}
        self._edges: dict[str, set[str]] = {}
        self._data: dict[str, set[Path]] = {}
        self._dirs: dict[Path, tuple[str, ...]] = {}

    def _beside(self, directory: Path) -> tuple[str, ...]:
        """Names of the non-Python files in ``directory`` (candidate package data files)."""
        if directory not in self._dirs:
            self._dirs[directory] = tuple(sorted(
                p.name for p in directory.iterdir() if p.is_file() and p.suffix != ".py"))
        return self._dirs[directory]

    def module_file(self, name: str) -> Path | None:
        if name not in self._files:
            self._files[name] = self._module_file(name)
        return self._files[name]

    def _module_file(self, name: str) -> Path | None:
        parts = name.split(".")
        if parts[0] != PACKAGE:
            return None
        base = self.root.joinpath(*parts[1:])
        init = base / "__init__.py"
        if init.is_file():
            return init
        if len(parts) > 1 and base.with_suffix(".py").is_file():
            return base.with_suffix(".py")
        return None

    def module(self, name: str) -> _Module | None:
        if name not in self._modules:
            path = self.module_file(name)
            self._modules[name] = None if path is None else self._parse(name, path)
        return self._modules[name]

    def _parse(self, name: str, path: Path) -> _Module:
        source = path.read_bytes()
        tree = ast.parse(source, filename=str(path))
        mod = _Module(name=name, path=path, is_package=path.name == "__init__.py")
        pkg = name if mod.is_package else name.rpartition(".")[0]
        # Import statements anywhere (also in functions, branches, try blocks): only
        # statements are visited, not the expressions inside them (most of the tree).
        todo = list(tree.body)
        while todo:
            node = todo.pop()
            if isinstance(node, ast.Import):
                for alias in node.names:
                    mod.imports.append((alias.name, None))
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(pkg, node.module, node.level)
                if base is not None:
                    mod.imports.append((base, [a.name for a in node.names]))
            else:
                for field_name in ("body", "orelse", "finalbody", "handlers", "cases"):
                    todo.extend(getattr(node, field_name, ()))
        # string literals naming a non-Python file beside the module (quoted in the source)
        for file_name in self._beside(path.parent):
            if any(f"{q}{file_name}{q}".encode() in source for q in ("'", '"')):
                mod.strings.add(file_name)
        # what the module's namespace gets from its imports: top-level statements and
        # those of top-level ``if`` / ``try`` blocks (a lazy package ``__init__`` names its
        # re-exports under ``if TYPE_CHECKING:`` and loads them in ``__getattr__``)
        top, stack = [], list(reversed(tree.body))
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.If, ast.Try)):
                stack.extend(reversed([*node.body, *node.orelse, *getattr(node, "finalbody", ())]))
            else:
                top.append(node)
        for node in top:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        mod.bindings[alias.asname] = (alias.name, None)
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(pkg, node.module, node.level)
                for alias in node.names:
                    if base is not None and alias.name != "*":
                        mod.bindings[alias.asname or alias.name] = (base, alias.name)
        return mod

    def defining_module(self, module: str, attr: str, _depth: int = 0) -> str:
        """The module that defines ``module.attr``: a submodule of that name, else the
        origin of a package ``__init__``'s re-export, else ``module`` itself."""
        sub = f"{module}.{attr}"
        if self.module_file(sub) is not None:
            return sub
        mod = self.module(module)
        if mod is None or not mod.is_package or attr not in mod.bindings or _depth > 20:
            return module
        origin, name = mod.bindings[attr]
        if not origin.startswith(PACKAGE):
            return module
        if name is None:
            return origin
        return self.defining_module(origin, name, _depth + 1)

    def resolve(self, target: str) -> str:
        """``"pu_lib.a.b"`` (a module) or ``"pu_lib.a:Name"`` (a name in a module) -> module."""
        module, _, attr = target.partition(":")
        if self.module_file(module) is None:
            raise ValueError(f"code hash: no module {module!r} in {self.root}")
        return self.defining_module(module, attr) if attr else module

    def edges(self, name: str) -> set[str]:
        """Modules that ``name``'s import statements run, with names resolved to the
        modules that define them."""
        if name not in self._edges:
            self._edges[name] = self._find_edges(name)
        return self._edges[name]

    def _find_edges(self, name: str) -> set[str]:
        mod = self.module(name)
        out = set()
        if mod is None:
            return out
        for base, names in mod.imports:
            if base != PACKAGE and not base.startswith(PACKAGE + "."):
                continue
            if names is None:  # import pu_lib.a.b
                if self.module_file(base) is not None:
                    out.add(base)
                continue
            for attr in names:
                if attr == "*":
                    out.add(base)
                else:
                    out.add(self.defining_module(base, attr))
        return {m for m in out if self.module_file(m) is not None}

    def data_files(self, name: str) -> set[Path]:
        """Non-Python files beside module ``name`` that it names by a string literal."""
        if name not in self._data:
            mod = self.module(name)
            if mod is None:
                self._data[name] = set()
            else:
                self._data[name] = {mod.path.parent / s for s in mod.strings}
        return self._data[name]


def _absolute(pkg: str, module: str | None, level: int) -> str | None:
    if level == 0:
        return module
    parts = pkg.split(".") if pkg else []
    if level - 1 > len(parts):
        return None
    parts = parts[: len(parts) - (level - 1)]
    if module:
        parts += module.split(".")
    return ".".join(parts) or None


def _ancestors(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


# --------------------------------------------------------------------------- closure
def code_files(roots, shallow=(), *, package: str | Path | None = None) -> list[str]:
    """The files (paths relative to the package's parent, posix, sorted) whose bytes
    :func:`code_hash` hashes for ``roots`` (module names or ``module:Name`` targets,
    followed through their imports) and ``shallow`` (modules counted by their own bytes)."""
    pkg = _Package(Path(package) if package is not None else package_dir())
    return sorted(p.relative_to(pkg.base).as_posix() for p in _closure(pkg, tuple(roots), tuple(shallow)))


def _closure(pkg: _Package, roots: tuple, shallow: tuple) -> set[Path]:
    start = [pkg.resolve(r) for r in roots]
    named = set(start)
    seen: set[str] = set()
    files: set[Path] = set()
    todo = list(start)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for edge in pkg.edges(name):
            if edge not in seen and (edge not in DISPATCHED or edge in named):
                todo.append(edge)
    for name in seen | {pkg.resolve(s) for s in shallow}:
        files.add(pkg.module_file(name))
        files |= pkg.data_files(name)
        for anc in _ancestors(name):  # package __init__ files run on the way (own bytes only)
            f = pkg.module_file(anc)
            if f is not None:
                files.add(f)
    return files


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def compute_code_hash(roots, shallow=(), *, package: str | Path | None = None) -> str:
    """:func:`code_hash` without the per-process cache (reads the files every call)."""
    pkg = _Package(Path(package) if package is not None else package_dir())
    return _hash_of(pkg, roots, shallow, _file_digest)


def _hash_of(pkg: _Package, roots, shallow, digest) -> str:
    lines = sorted(f"{p.relative_to(pkg.base).as_posix()}\0{digest(p)}"
                   for p in _closure(pkg, tuple(roots), tuple(shallow)))
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()[:16]


@functools.lru_cache(maxsize=8)
def _shared_package(package: str) -> _Package:
    """One parsed copy of the package per process: the workflow hashes the closures of
    every method and rule group in one invocation, and the closures share most modules
    (each file is parsed and read once, not once per closure)."""
    return _Package(Path(package))


_cached_digest = functools.lru_cache(maxsize=None)(_file_digest)


@functools.lru_cache(maxsize=256)
def _cached(roots: tuple, shallow: tuple, package: str) -> str:
    return _hash_of(_shared_package(package), roots, shallow, _cached_digest)


def _clear_caches() -> None:
    _cached.cache_clear()
    _shared_package.cache_clear()
    _cached_digest.cache_clear()


def code_hash(roots, shallow=(), *, package: str | Path | None = None) -> str:
    """16 hex digits of the sha256 of the pu_lib sources that ``roots`` can run (module
    docstring). Cached per process (the workflow computes it once per invocation;
    ``code_hash.cache_clear()`` or :func:`compute_code_hash` re-read the files)."""
    root = str(Path(package).resolve() if package is not None else package_dir())
    return _cached(tuple(sorted(set(roots))), tuple(sorted(set(shallow))), root)


code_hash.cache_clear = _clear_caches


# --------------------------------------------------------------------------- jobs
def fit_roots(method_spec: dict, *, method: str | None = None, prior_evaluation: dict | None = None,
              staged_metrics=None) -> list[str]:
    """Root modules of a ``fit_eval`` job of the method ``method_spec`` (named ``method``
    in the config): the runner, the Dask client helpers, the registered class of the
    method, its scoring module (classifier or class-prior, by registry kind), the
    base-estimator factory when ``base`` is given, every registered method that a
    parameter names (``prior: tice``), and the optional scoring parts the experiment
    asks for (``staged_metrics``; ``prior_evaluation`` calibration / classification and
    bootstrap)."""
    from pu_lib.workflow import registry

    name = method_spec["method"]
    entry = registry.get(name)
    roots = [RUNNER, "pu_lib.distributed", "pu_lib.workflow.experiments.methods", entry.target]
    if method_spec.get("base"):
        roots.append("pu_lib.base_learners")
    for value in (method_spec.get("params") or {}).values():
        if isinstance(value, str) and value in registry.METHODS:
            roots.append(registry.METHODS[value].target)
    if entry.kind == "prior":
        roots.append("pu_lib.workflow.experiments.prior_eval")
        pe = prior_evaluation or {}
        if pe.get("calibration") or pe.get("classification"):
            roots.append("pu_lib.prior.evaluation")
        if pe.get("bootstrap") and (method is None or method in pe.get("bootstrap_methods", [method])):
            roots.append("pu_lib.prior.bootstrap")
    else:
        roots.append("pu_lib.workflow.experiments.classifier_eval")
        if staged_metrics:
            roots.append("pu_lib.workflow.experiments.curves")
    return roots


def fit_code_hash(method_spec: dict, *, method: str | None = None, prior_evaluation: dict | None = None,
                  staged_metrics=None, package: str | Path | None = None) -> str:
    """:func:`code_hash` of :func:`fit_roots` (the ``code_hash`` parameter of ``fit_eval``)."""
    return code_hash(fit_roots(method_spec, method=method, prior_evaluation=prior_evaluation,
                               staged_metrics=staged_metrics), package=package)


def rule_code_hash(group: str, *, package: str | Path | None = None) -> str:
    """:func:`code_hash` of a root group of :data:`RULE_ROOTS` (the ``code_hash``
    parameter of ``labels``, the report and figure rules)."""
    roots, shallow = RULE_ROOTS[group]
    return code_hash(roots, shallow, package=package)
