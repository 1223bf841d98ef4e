"""Optional dependencies: the one place that imports them and names the extra to install.

``pip install -e .`` installs the estimators with numpy, scipy, scikit-learn, numba,
pandas, pyarrow and threadpoolctl. Everything else is an extra of ``pyproject.toml``
(:data:`EXTRAS`), imported where it is used, through :func:`require`: importing any
part of the package works without the extras, and a missing one raises ``ImportError``
at first use, naming what needs it and the command that installs it::

    xgb = require("xgboost", purpose="nnPU with XGBoost")
    # ImportError: nnPU with XGBoost needs xgboost, which could not be imported
    # (No module named 'xgboost'); install it with pip install "pu_lib[xgboost]"
"""

from __future__ import annotations

import importlib
import importlib.util

__all__ = ["EXTRAS", "available", "install_hint", "require"]

#: top-level module -> (distribution on PyPI, extra of pu_lib that installs it)
EXTRAS: dict[str, tuple[str, str]] = {
    "xgboost": ("xgboost", "xgboost"),
    "catboost": ("catboost", "catboost"),
    "imblearn": ("imbalanced-learn", "imbalanced"),
    "dask": ("dask", "dask"),
    "distributed": ("distributed", "dask"),
    "matplotlib": ("matplotlib", "plot"),
    "snakemake": ("snakemake", "workflow"),
    "jsonschema": ("jsonschema", "workflow"),
    "yaml": ("pyyaml", "workflow"),
    "torch": ("torch", "nn"),
}


def install_hint(module: str, extra: str | None = None) -> str:
    """The pip command that installs ``module``'s extra (``extra`` overrides it)."""
    top = module.split(".")[0]
    if extra is None:
        if top not in EXTRAS:
            raise ValueError(f"{top!r} is not an optional dependency of pu_lib; known: {', '.join(EXTRAS)}")
        extra = EXTRAS[top][1]
    return f'pip install "pu_lib[{extra}]"'


def available(module: str) -> bool:
    """Whether ``module`` can be imported (found on the path), without importing it."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or a broken spec
        return False


def require(module: str, *, purpose: str, extra: str | None = None):
    """Import and return ``module`` (e.g. ``"xgboost"``, ``"matplotlib.pyplot"``).

    When it cannot be imported: ``ImportError`` saying that ``purpose`` needs it and
    which extra installs it (``pip install "pu_lib[<extra>]"``; ``extra`` defaults to
    the one :data:`EXTRAS` names for its top-level module), chained to the original
    error, whose message it repeats (a module that is installed but fails to load is
    told apart from one that is missing)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        dist = EXTRAS.get(top, (top, None))[0]
        raise ImportError(f"{purpose} needs {dist}, which could not be imported ({exc}); install it with "
                          f"{install_hint(module, extra)}", name=top) from exc
