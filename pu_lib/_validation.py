"""Shared input validation for PU estimators and mechanisms.

Errors are ``ValueError`` naming the argument and the problem. Estimator *parameters*
are validated declaratively (scikit-learn's ``_parameter_constraints``, see
:mod:`pu_lib.base`); this module checks *data*: ``X``, ``s``, probabilities, priors,
sample weights and the scenario name.

The two PU scenarios (Bekker thesis, section 2.1.5) are spelled one way everywhere, in
estimators, label files, result rows and configs: :data:`SINGLE_TRAINING_SET` and
:data:`CASE_CONTROL`.
"""

from __future__ import annotations

import numpy as np

#: one i.i.d. sample, some of its positives labeled (labeled rows are part of U)
SINGLE_TRAINING_SET = "single_training_set"
#: the labeled positives and the unlabeled sample are drawn separately
CASE_CONTROL = "case_control"
SCENARIOS = (SINGLE_TRAINING_SET, CASE_CONTROL)


def check_scenario(scenario, name: str = "scenario") -> str:
    """Return ``scenario`` if it is one of :data:`SCENARIOS`, else raise ``ValueError``."""
    if not isinstance(scenario, str) or scenario not in SCENARIOS:
        raise ValueError(f"{name} must be one of {list(SCENARIOS)}, got {scenario!r}")
    return scenario


def check_sample_weight(sample_weight, n: int, dtype=np.float64) -> np.ndarray:
    """Per-row weights for ``n`` rows: None gives ones; otherwise a 1-D finite,
    non-negative vector of length ``n`` with a positive sum (a scalar is broadcast)."""
    if sample_weight is None:
        return np.ones(n, dtype=dtype)
    w = np.asarray(sample_weight)
    if w.ndim == 0:
        w = np.full(n, w)
    if w.ndim != 1:
        raise ValueError(f"sample_weight must be 1-D, got shape {w.shape}")
    if w.shape[0] != n:
        raise ValueError(f"sample_weight has {w.shape[0]} entries but X has {n} rows")
    if not (np.issubdtype(w.dtype, np.number) or w.dtype == bool):
        raise ValueError(f"sample_weight must be numeric, got dtype {w.dtype}")
    w = w.astype(dtype)
    if not np.all(np.isfinite(w)):
        raise ValueError("sample_weight contains NaN or infinite values")
    if np.any(w < 0):
        raise ValueError("sample_weight must be non-negative")
    if not w.sum() > 0:
        raise ValueError("sample_weight sums to zero")
    return w


def check_X(X, name: str = "X", dtype=np.float64, allow_nan: bool = False) -> np.ndarray:
    """Validate a 2-D finite numeric feature matrix; returns an ndarray (no copy if possible)."""
    if hasattr(X, "to_numpy"):
        X = X.to_numpy()
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array, got shape {X.shape}")
    if X.shape[0] == 0:
        raise ValueError(f"{name} has no rows")
    if X.shape[1] == 0:
        raise ValueError(f"{name} has no columns")
    if not np.issubdtype(X.dtype, np.number) and X.dtype != bool:
        raise ValueError(f"{name} must be numeric, got dtype {X.dtype}")
    if dtype is not None and X.dtype != dtype:
        X = X.astype(dtype)
    if not allow_nan and not np.all(np.isfinite(X)):
        bad = int(np.sum(~np.isfinite(X)))
        raise ValueError(f"{name} contains {bad} NaN or infinite value(s); impute or drop them first")
    return X


def check_binary(v, name: str, n: int | None = None) -> np.ndarray:
    """Validate a 1-D vector of 0/1 (or bool, or -1/+1 not allowed) labels; returns int8 array."""
    v = np.asarray(v)
    if v.ndim == 2 and v.shape[1] == 1:
        v = v.ravel()
    if v.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {v.shape}")
    if n is not None and v.shape[0] != n:
        raise ValueError(f"{name} has {v.shape[0]} entries but X has {n} rows")
    if v.dtype == bool:
        return v.astype(np.int8)
    if not np.issubdtype(v.dtype, np.number):
        raise ValueError(f"{name} must hold 0/1 values, got dtype {v.dtype}")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{name} contains NaN or infinite values")
    uniq = np.unique(v)
    if not np.all(np.isin(uniq, (0, 1))):
        raise ValueError(f"{name} must hold only 0 and 1, found values {uniq[:10].tolist()}")
    return v.astype(np.int8)


def check_X_s(X, s, dtype=np.float64, allow_nan: bool = False):
    """Validate PU training data: finite 2-D X (``allow_nan``: NaN allowed, infinities
    not) and 0/1 ``s`` with at least one labeled positive and at least one unlabeled
    example."""
    X = check_X(X, dtype=dtype, allow_nan=allow_nan)
    if allow_nan and np.isinf(X).any():
        raise ValueError("X contains infinite values; replace them (NaN is allowed here)")
    s = check_binary(s, "s", n=X.shape[0])
    n_lab = int(s.sum())
    if n_lab == 0:
        raise ValueError("s has no labeled positives (no s == 1); PU learning needs at least one")
    if n_lab == s.shape[0]:
        raise ValueError("s has no unlabeled examples (all s == 1); PU learning needs unlabeled data")
    return X, s


def check_probabilities(p, name: str = "probs", n: int | None = None, ref: str = "s",
                        allow_empty: bool = True) -> np.ndarray:
    """Validate a 1-D vector of probabilities in [0, 1] (a column vector is raveled);
    ``n``: required length (the message names ``ref``). Returns float64."""
    p = np.asarray(p)
    if p.ndim == 2 and 1 in p.shape:
        p = p.ravel()
    if p.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {p.shape}")
    if n is not None and p.shape[0] != n:
        raise ValueError(f"{name} has {p.shape[0]} entries but {ref} has {n}")
    if not allow_empty and p.shape[0] == 0:
        raise ValueError(f"{name} is empty")
    if not (np.issubdtype(p.dtype, np.number) or p.dtype == bool):
        raise ValueError(f"{name} must be numeric, got dtype {p.dtype}")
    p = p.astype(np.float64)
    if not np.all(np.isfinite(p)):
        raise ValueError(f"{name} contains NaN or infinite values")
    if p.size and (p.min() < 0.0 or p.max() > 1.0):
        raise ValueError(f"{name} must hold probabilities in [0, 1], found range [{p.min()}, {p.max()}]")
    return p


def check_prior(prior, name: str = "prior") -> float:
    """Validate a class prior in the open interval (0, 1)."""
    try:
        p = float(prior)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number in (0, 1), got {prior!r}") from None
    if not (0.0 < p < 1.0) or not np.isfinite(p):
        raise ValueError(f"{name} must lie in the open interval (0, 1), got {prior!r}")
    return p
