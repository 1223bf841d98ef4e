"""Shared input validation for PU estimators and mechanisms.

Errors are ``ValueError`` naming the argument and the problem. Estimator *parameters*
are validated declaratively (scikit-learn's ``_parameter_constraints``, see
:mod:`pu_lib.base`), and so are the parameters of public functions
(:func:`validate_params`, scikit-learn's decorator, with constraints declared here
without importing scikit-learn); this module checks *data* too: ``X``, ``s``,
probabilities, priors, sample weights and the scenario name (what a constraint cannot
express: shapes, lengths, 0/1 labels), one function for each.

The two PU scenarios (Bekker thesis, section 2.1.5) are spelled one way everywhere, in
estimators, label files, result rows and configs: :data:`SINGLE_TRAINING_SET` and
:data:`CASE_CONTROL`.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["CASE_CONTROL", "SCENARIOS", "SINGLE_TRAINING_SET", "DegenerateFeaturesWarning", "SparseInputError",
           "accepts_sparse", "as_1d", "check_X", "check_X_s", "check_binary", "check_fraction", "check_input_kind",
           "check_prior", "check_prior_feasible", "check_probabilities", "check_sample_weight", "check_scenario",
           "check_varying_features", "is_sparse", "labeled_share", "validate_params",
           "validate_pu_data", "varying_columns"]

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


class SparseInputError(ValueError, TypeError):
    """Sparse ``X`` given to an estimator that needs dense input. A ``ValueError`` (the
    library's error for bad input) and a ``TypeError`` (scikit-learn's for sparse input)."""


class DegenerateFeaturesWarning(UserWarning):
    """No feature of ``X`` varies among the labeled rows: a class-prior estimate then
    rests only on how many unlabeled rows share the labeled rows' one feature vector."""


def is_sparse(X) -> bool:
    """Whether ``X`` is a scipy sparse matrix or array (scipy is not imported for this)."""
    import sys

    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(X)


def accepts_sparse(estimator) -> bool:
    """Whether ``estimator`` takes scipy sparse ``X``: its ``_accepts_sparse`` attribute,
    the one place an estimator declares it (a class attribute, or a property reading the
    parameters on which it depends, such as the base learner); False when absent. Sparse
    ``X`` reaches such an estimator as CSR (CSC and the other formats are converted)."""
    return estimator is not None and bool(getattr(estimator, "_accepts_sparse", False))


#: the registered methods that take sparse input, as the message of :class:`SparseInputError`
#: names them (by default, then each condition with its methods); written from each class's
#: ``_accepts_sparse`` by :func:`pu_lib.workflow.registry.sparse_methods_text`, and a test checks it is
#: current (this module imports no estimator and no registry)
SPARSE_METHODS_TEXT = (
    "pu_weighted_lr, upu_xgb, nnpu_xgb, imbalanced_nnpu_xgb, nnpu_xgb_csboost, imbalanced_nnpu_xgb_csboost, "
    "pn_boosting, upu, nnpu, imbalanced_nnpu, vpu, selfpu, pulscar, pulsnar, dedpul, alphamax, alphamax_n, pe, "
    "pen_l1; with a base learner that takes sparse input, e.g. LogisticRegression(): naive, elkan_noto, "
    "elkan_noto_pulearn, rank_pruning, pu_bagging, supervised"
)


def _sparse_error(X, name: str, estimator) -> SparseInputError:
    shape = getattr(X, "shape", None)
    mb = ""
    if shape is not None and len(shape) == 2:
        mb = f" (a dense float64 copy takes {shape[0] * shape[1] * 8 / 2**20:.0f} MB)"
    if estimator is None:
        who = "this estimator takes"
    else:
        import inspect

        fixed = isinstance(inspect.getattr_static(type(estimator), "_accepts_sparse", False), bool)
        who = f"{type(estimator).__name__} takes" if fixed else \
            f"{type(estimator).__name__} with these parameters takes"
    hint = f"; the estimators that take sparse input: {SPARSE_METHODS_TEXT}"
    return SparseInputError(
        f"{name} is a sparse matrix ({type(X).__name__}, shape {shape}); {who} dense input only: convert it "
        f"with {name}.toarray(){mb}, or reduce it first (e.g. TruncatedSVD){hint}"
    )


def check_input_kind(X, name: str = "X", estimator=None) -> None:
    """Reject, with a message naming the problem, inputs that a numeric conversion would
    reject obscurely: a scipy sparse matrix unless ``estimator`` takes one
    (:func:`accepts_sparse`; otherwise :class:`SparseInputError`, whose message names the
    estimators that take sparse input) and a pandas DataFrame with non-numeric columns
    (``ValueError`` naming the columns). Boolean columns and categorical columns with
    numeric categories count as numeric."""
    if is_sparse(X):
        if accepts_sparse(estimator):
            return
        raise _sparse_error(X, name, estimator)
    dtypes = getattr(X, "dtypes", None)
    if dtypes is None or not hasattr(X, "columns") or not hasattr(dtypes, "items"):
        return
    import pandas as pd

    bad = []
    for col, dt in dtypes.items():
        if isinstance(dt, pd.CategoricalDtype):
            ok = pd.api.types.is_numeric_dtype(dt.categories.dtype)
        else:
            ok = pd.api.types.is_numeric_dtype(dt) or pd.api.types.is_bool_dtype(dt)
        if not ok:
            bad.append((col, str(dt)))
    if bad:
        cols = [c for c, _ in bad]
        kinds = ", ".join(f"{c!r}: {d}" for c, d in bad[:10])
        raise ValueError(
            f"{name} has non-numeric column(s) {cols[:20]}{' ...' if len(cols) > 20 else ''} ({kinds}); "
            "pu_lib's estimators take numeric features only: encode them first (e.g. pandas.get_dummies)"
        )


def varying_columns(X) -> np.ndarray:
    """Boolean mask of the columns of a 2-D array that hold more than one value (NaN
    counts as a value of its own: a column of numbers and NaN varies). For a sparse
    matrix, absent entries count as missing (NaN), as XGBoost reads them."""
    if is_sparse(X):
        return _sparse_varying_columns(X)
    X = np.asarray(X)
    if X.shape[0] == 0:
        return np.zeros(X.shape[1], dtype=bool)
    if not np.issubdtype(X.dtype, np.floating) or not np.isnan(X).any():
        return np.any(X != X[:1], axis=0)
    nan = np.isnan(X)
    first = np.where(nan.all(axis=0), np.nan, X[np.argmax(~nan, axis=0), np.arange(X.shape[1])])
    differs = np.any((X != first[None, :]) & ~nan, axis=0)
    mixed = nan.any(axis=0) & ~nan.all(axis=0)
    return differs | mixed


def _sparse_varying_columns(X) -> np.ndarray:
    """:func:`varying_columns` of a sparse matrix read as XGBoost reads it: absent entries
    (and stored NaN) are missing values, so a column varies when it holds two different
    stored values or some stored values and some missing ones."""
    Xc = X.tocsc()
    n, d = Xc.shape
    data = np.asarray(Xc.data, dtype=np.float64)
    present = ~np.isnan(data)
    col = np.repeat(np.arange(d), np.diff(Xc.indptr))
    count = np.bincount(col[present], minlength=d)
    lo = np.full(d, np.inf)
    hi = np.full(d, -np.inf)
    np.minimum.at(lo, col[present], data[present])
    np.maximum.at(hi, col[present], data[present])
    return ((count > 0) & (count < n)) | ((count > 0) & (lo != hi))


def check_varying_features(X, s, estimator: str) -> None:
    """For class-prior estimation: ``ValueError`` when no feature of ``X`` varies (every
    estimator would return its trivial bound, prior 1, from such data);
    :class:`DegenerateFeaturesWarning` when no feature varies among the labeled rows
    (``s == 1``)."""
    if not varying_columns(X).any():
        raise ValueError(
            f"{estimator}: every feature of X is constant ({X.shape[1]} column(s), {X.shape[0]} rows), so labeled "
            "and unlabeled rows cannot be told apart and no class prior can be estimated (the estimate would be "
            "the trivial prior 1.0); check the feature matrix"
        )
    lab = X[np.flatnonzero(np.asarray(s) == 1)]
    if lab.shape[0] > 1 and not varying_columns(lab).any():
        import warnings

        warnings.warn(
            f"{estimator}: no feature of X varies among the {lab.shape[0]} labeled rows (they are one point); "
            "the estimate only counts the unlabeled rows that share that point and is unreliable",
            DegenerateFeaturesWarning, stacklevel=3,
        )


def check_X(X, name: str = "X", dtype=np.float64, allow_nan: bool = False, accept_sparse: bool = False):
    """Validate a 2-D finite numeric feature matrix; returns an ndarray (no copy if possible).
    DataFrames with non-numeric columns are rejected by :func:`check_input_kind`, and so
    are sparse matrices unless ``accept_sparse``: a sparse ``X`` is then returned as a CSR
    matrix of ``dtype`` (its stored values checked as a dense array's)."""
    if accept_sparse and is_sparse(X):
        return _check_sparse_X(X, name, dtype, allow_nan)
    check_input_kind(X, name)
    if hasattr(X, "to_numpy"):
        X = X.to_numpy()
    X = np.asarray(X)
    _check_shape_and_kind(X, name)
    if dtype is not None and X.dtype != dtype:
        X = X.astype(dtype)
    if not allow_nan and not np.all(np.isfinite(X)):
        bad = int(np.sum(~np.isfinite(X)))
        raise ValueError(f"{name} contains {bad} NaN or infinite value(s); impute or drop them first")
    return X


def _check_shape_and_kind(X, name: str) -> None:
    """Shared by the dense and sparse paths of :func:`check_X`: 2-D, at least one row and
    one column, a numeric or boolean dtype."""
    if len(X.shape) != 2:
        raise ValueError(f"{name} must be a 2-D array, got shape {X.shape}")
    if X.shape[0] == 0:
        raise ValueError(f"{name} has no rows")
    if X.shape[1] == 0:
        raise ValueError(f"{name} has no columns")
    if not np.issubdtype(X.dtype, np.number) and X.dtype != bool:
        raise ValueError(f"{name} must be numeric, got dtype {X.dtype}")


def _check_sparse_X(X, name: str, dtype, allow_nan: bool):
    """:func:`check_X` of a sparse matrix: CSR of ``dtype``, at least one row and column,
    numeric, finite stored values (NaN allowed with ``allow_nan``)."""
    _check_shape_and_kind(X, name)
    if X.format != "csr":
        X = X.tocsr()
    if dtype is not None and X.dtype != dtype:
        X = X.astype(dtype)
    if not allow_nan and not np.all(np.isfinite(X.data)):
        bad = int(np.sum(~np.isfinite(X.data)))
        raise ValueError(f"{name} contains {bad} NaN or infinite value(s); impute or drop them first")
    return X


def as_1d(v, name: str, n: int | None = None, ref: str | None = None) -> np.ndarray:
    """``v`` as a 1-D array (a column or row vector is raveled); ``ValueError`` naming
    ``name`` for another shape or, with ``n``, another length (the message names ``ref``,
    by default "X has n rows")."""
    v = np.asarray(v)
    if v.ndim == 2 and 1 in v.shape:
        v = v.ravel()
    if v.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {v.shape}")
    if n is not None and v.shape[0] != n:
        other = f"X has {n} rows" if ref is None else f"{ref} has {n}"
        raise ValueError(f"{name} has {v.shape[0]} entries but {other}")
    return v


def check_binary(v, name: str, n: int | None = None) -> np.ndarray:
    """Validate a 1-D vector of 0/1 (or bool, or -1/+1 not allowed) labels; returns int8 array."""
    v = as_1d(v, name, n)
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


def check_X_s(X, s, dtype=np.float64, allow_nan: bool = False, accept_sparse: bool = False):
    """Validate PU training data: finite 2-D X (``allow_nan``: NaN allowed, infinities
    not; ``accept_sparse``: a sparse X returned as CSR, see :func:`check_X`) and 0/1
    ``s`` with at least one labeled positive and at least one unlabeled example."""
    X = check_X(X, dtype=dtype, allow_nan=allow_nan, accept_sparse=accept_sparse)
    if allow_nan and np.isinf(X.data if is_sparse(X) else X).any():
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
    p = as_1d(p, name, n, ref)
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


def labeled_share(s, sample_weight=None) -> tuple[float, float, float]:
    """``(share, n_labeled, n)`` of PU labels ``s`` (1 = labeled): the labeled rows'
    share of all rows, weighted by ``sample_weight`` when given (the counts are then the
    weight sums)."""
    s = np.asarray(s).ravel()
    if sample_weight is None:
        n_l, n = float(np.count_nonzero(s == 1)), float(s.shape[0])
    else:
        w = np.asarray(sample_weight, dtype=np.float64).ravel()
        n_l, n = float(w[s == 1].sum()), float(w.sum())
    return (n_l / n if n > 0 else float("nan")), n_l, n


def _count(v: float) -> str:
    return f"{int(v)}" if float(v).is_integer() else f"{v:.4g}"


def check_prior_feasible(prior, s, scenario: str = SINGLE_TRAINING_SET, sample_weight=None,
                         name: str = "prior") -> float:
    """A class prior checked against the PU labels it is used with: the one place where
    a prior that the data make impossible is refused (every classifier through
    :func:`pu_lib.prior.resolve_prior`, the command line through its ``--prior``).

    ``prior`` is first checked to lie in (0, 1) (:func:`check_prior`). Then, per scenario
    (Bekker thesis, section 2.1.5):

    * ``"single_training_set"``: the prior is ``Pr(y = 1)`` over all the rows, and every
      labeled row is a positive, so ``prior >= n_labeled / n`` (the labeled share, weighted
      by ``sample_weight`` when given; equality means every positive is labeled). A
      smaller prior is impossible: ``ValueError`` with both numbers.
    * ``"case_control"``: the prior is ``Pr(y = 1)`` of the population the *unlabeled*
      rows were drawn from (the fraction of positives among them), and the labeled rows
      are a separate sample of positives stacked beside it. Their number says nothing
      about that fraction -- any value in (0, 1) is possible -- so nothing beyond (0, 1)
      is checked.

    Returns the prior as a float. ``name`` names it in the message (e.g. "prior estimated
    by TIcE").
    """
    p = check_prior(prior, name)
    check_scenario(scenario)
    if scenario == CASE_CONTROL:
        return p
    share, n_l, n = labeled_share(s, sample_weight)
    if p < share - 1e-12:
        rows = "rows labeled" if sample_weight is None else "weighted rows labeled"
        raise ValueError(
            f"{name} {p:.4g} is below the labeled share {share:.4g} ({_count(n_l)} of {_count(n)} {rows}): "
            f"in the single_training_set scenario the prior is Pr(y = 1) over all rows and every labeled row "
            f"is positive, so the prior cannot be smaller than the labeled share (in the case_control scenario "
            f"the prior is that of the unlabeled rows' population, with no such bound)")
    return p


def check_fraction(value, name: str, low: float = 0.0, high: float = 1.0, closed: str = "both") -> float:
    """A finite real number (not a bool) between ``low`` and ``high`` (``closed``: "both",
    "left", "right" or "neither"), as a float; ``ValueError`` naming ``name`` otherwise.
    For values that are not a function's parameters (a fitted estimator's ``alpha_``);
    parameters are declared with :func:`validate_params`."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number, got {value!r}")
    v = float(value)
    lo_ok = v >= low if closed in ("both", "left") else v > low
    hi_ok = v <= high if closed in ("both", "right") else v < high
    if not (np.isfinite(v) and lo_ok and hi_ok):
        interval = ("[" if closed in ("both", "left") else "(") + f"{low:g}, {high:g}" + \
            ("]" if closed in ("both", "right") else ")")
        raise ValueError(f"{name} must lie in {interval}, got {value!r}")
    return v


def _check_two_label_kinds(s: np.ndarray) -> None:
    """``ValueError`` (naming the one class) when ``s`` holds a single value."""
    values = np.unique(s)
    if values.size >= 2:
        return
    v = values[0].item() if values.size else None
    if v == 0:
        what = "s has no labeled positives (no s == 1)"
    elif v == 1:
        what = "s has no unlabeled examples (all s == 1)"
    else:
        what = f"s holds one value only ({v!r})"
    raise ValueError(f"{what}: one class only; PU learning needs labeled (s == 1) and unlabeled (s == 0) rows")


def validate_pu_data(estimator, X, s, *, dtype=np.float64, allow_nan: bool = False, sample_weight=None):
    """Validate the training data of a PU estimator's ``fit(X, s)``, the scikit-learn way.

    ``X`` is first checked by :func:`check_input_kind` (sparse input: :class:`SparseInputError`
    unless the estimator takes it, :func:`accepts_sparse`, and then a CSR matrix of
    ``dtype`` comes back; a DataFrame's non-numeric columns named), then goes through scikit-learn's
    ``validate_data`` (records ``n_features_in_`` and, for a DataFrame,
    ``feature_names_in_``; complex, empty, 1-D and one-row input rejected with
    scikit-learn's messages; NaN left to the next step); ``s`` must be
    given, 1-D (a column vector is raveled with a ``DataConversionWarning``), a
    classification target ("Unknown label type" otherwise), binary ("Only binary
    classification is supported") with both values present ("one class only"); then
    :func:`pu_lib._validation.check_X_s` (finite ``X`` or, with ``allow_nan``, NaN but no
    infinities; ``s`` exactly 0/1). With ``sample_weight``
    (:func:`pu_lib._validation.check_sample_weight`), rows of weight 0 are dropped, so a
    zero weight is exactly a removed row, and unit weights on the kept rows become None.

    Returns ``(X, s, w, rows)``: ``X`` of ``dtype`` (float64 by default; the trees use float32), int8 ``s``, the kept weights (None
    without weights) and the indices of the kept rows in the input.
    """
    from sklearn.utils.multiclass import check_classification_targets  # scikit-learn only when fitting
    from sklearn.utils.validation import column_or_1d, validate_data

    if s is None:
        raise ValueError(f"{type(estimator).__name__} requires y to be passed, but the target y is None: "
                         "fit takes the PU labels s (1 = labeled positive, 0 = unlabeled)")
    check_input_kind(X, estimator=estimator)
    sparse = accepts_sparse(estimator) and is_sparse(X)
    X = validate_data(estimator, X, reset=True, dtype=dtype, ensure_all_finite=False, ensure_min_samples=2,
                      accept_sparse="csr" if sparse else False)
    s = np.asarray(s)
    if s.ndim == 2 and s.shape[1] == 1:
        s = column_or_1d(s, warn=True)
    if s.ndim == 1 and s.shape[0] == X.shape[0]:
        check_classification_targets(s)
        values = np.unique(s)
        if values.size > 2:
            shown = values[:10].tolist()
            raise ValueError("Only binary classification is supported: s must hold only 0 and 1 "
                             f"(1 = labeled positive, 0 = unlabeled), found values {shown}")
        _check_two_label_kinds(s)
    X, s = check_X_s(X, s, dtype=dtype, allow_nan=allow_nan, accept_sparse=sparse)
    rows = np.arange(X.shape[0])
    if sample_weight is None:
        return X, s, None, rows
    w = check_sample_weight(sample_weight, X.shape[0])
    keep = w > 0
    if not keep.all():
        kept = np.flatnonzero(keep)  # row indices: also the rows of a CSR matrix
        X, s, w, rows = X[kept], s[kept], w[kept], rows[kept]
        _check_two_label_kinds(s)
    if np.all(w == 1.0):  # unit weights on the kept rows: exactly the unweighted fit
        w = None
    return X, s, w, rows


# ------------------------------------------------------------ parameters of public functions


class _Declared:
    """A scikit-learn constraint declared without importing scikit-learn: built (once, by
    :func:`validate_params`) on the first call of the function it guards, so modules that
    import without scikit-learn (:mod:`pu_lib.metrics`, :mod:`pu_lib.labeling`) declare
    their parameters the same way as the estimators."""

    def __init__(self, kind: str, *args, **kwargs):
        self.kind, self.args, self.kwargs = kind, args, kwargs

    def build(self):
        from sklearn.utils import _param_validation as pv

        if self.kind == "Interval":
            return _IntervalNoBool(*self.args, **self.kwargs)
        return getattr(pv, self.kind)(*self.args, **self.kwargs)

    def __repr__(self) -> str:
        args = ", ".join([*map(repr, self.args), *(f"{k}={v!r}" for k, v in self.kwargs.items())])
        return f"{self.kind}({args})"


def Interval(type, left, right, *, closed):  # noqa: A002 - scikit-learn's signature
    """scikit-learn's ``Interval`` constraint (a number of ``type`` between ``left`` and
    ``right``, ``closed`` one of "left", "right", "both", "neither"), except that a bool
    is not a number here (scikit-learn counts ``True`` as the integer 1)."""
    return _Declared("Interval", type, left, right, closed=closed)


def StrOptions(options, *, deprecated=None):
    """scikit-learn's ``StrOptions`` constraint: one of the strings ``options``."""
    return _Declared("StrOptions", set(options), deprecated=deprecated)


def HasMethods(methods):
    """scikit-learn's ``HasMethods`` constraint: an object with the methods ``methods``."""
    return _Declared("HasMethods", methods)


def Options(type, options):  # noqa: A002 - scikit-learn's signature
    """scikit-learn's ``Options`` constraint: one of ``options``, of ``type``."""
    return _Declared("Options", type, set(options))


def _interval_no_bool():
    from sklearn.utils._param_validation import Interval as SkInterval

    class IntervalNoBool(SkInterval):
        def is_satisfied_by(self, val):
            return not isinstance(val, (bool, np.bool_)) and super().is_satisfied_by(val)

    return IntervalNoBool


def _IntervalNoBool(*args, **kwargs):  # noqa: N802 - builds a constraint class once
    global _INTERVAL_NO_BOOL
    if _INTERVAL_NO_BOOL is None:
        _INTERVAL_NO_BOOL = _interval_no_bool()
    return _INTERVAL_NO_BOOL(*args, **kwargs)


_INTERVAL_NO_BOOL = None


def validate_params(parameter_constraints: dict, *, prefer_skip_nested_validation: bool = True):
    """Decorator validating the parameters of a public function: scikit-learn's
    ``sklearn.utils._param_validation.validate_params``, the one way pu_lib's public
    functions check types and ranges (a failure raises scikit-learn's
    ``InvalidParameterError``, a ``ValueError`` and ``TypeError``: "The 'n_bins' parameter
    of flip_labels must be an int in the range [1, inf). Got 0 instead.").

    ``parameter_constraints`` maps parameter names to lists of constraints as scikit-learn
    takes them (``"array-like"``, ``"random_state"``, ``"boolean"``, ``None``, types, and
    the :func:`Interval`, :func:`StrOptions`, :func:`Options` of this module, or
    scikit-learn's own objects); parameters it does not name are not checked there (arrays
    go through :func:`check_X`, :func:`check_binary`, :func:`check_probabilities`, ...). The
    constraints are built and scikit-learn is imported on the first call, not at import.
    ``prefer_skip_nested_validation``: as scikit-learn's (True: functions called inside do
    not validate again; False where the function fits estimators the caller passed in).

    Where every constraint of a function is ``None``, ``"boolean"``, ``"array-like"`` or an
    :func:`Interval`, :func:`StrOptions` or :func:`Options` of this module, the check runs
    here without importing scikit-learn, with scikit-learn's message and error class
    (:class:`InvalidParameterError`): importing scikit-learn costs about 1 s on a 2-core
    Xeon, which every label-set job of the workflow paid for a range check before.
    """
    import functools
    import inspect

    def decorate(func):
        built = None
        native = all(_native_constraint(c) for options in parameter_constraints.values() for c in options)
        signature = inspect.signature(func) if native else None

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            nonlocal built
            if native:
                if not _skip_validation():
                    bound = signature.bind(*args, **kwargs)
                    bound.apply_defaults()
                    for name, options in parameter_constraints.items():
                        if name in bound.arguments:
                            _check_native(func.__qualname__, name, bound.arguments[name], options)
                return func(*args, **kwargs)
            if built is None:
                from sklearn.utils._param_validation import validate_params as sk_validate_params

                constraints = {name: [c.build() if isinstance(c, _Declared) else c for c in options]
                               for name, options in parameter_constraints.items()}
                built = sk_validate_params(constraints,
                                           prefer_skip_nested_validation=prefer_skip_nested_validation)(func)
            return built(*args, **kwargs)

        wrapper.parameter_constraints = parameter_constraints
        return wrapper

    return decorate


class InvalidParameterError(ValueError, TypeError):
    """A parameter of a public function outside its constraints (as scikit-learn's
    ``InvalidParameterError``: a ``ValueError`` and a ``TypeError``)."""


def _native_constraint(c) -> bool:
    return c is None or c in ("boolean", "array-like") or (isinstance(c, _Declared) and c.kind in ("Interval", "StrOptions", "Options"))


def _skip_validation() -> bool:
    """scikit-learn's ``skip_parameter_validation`` (set inside validated estimators and
    functions); never True while scikit-learn is not imported."""
    import sys

    sklearn = sys.modules.get("sklearn")
    return bool(sklearn is not None and sklearn.get_config().get("skip_parameter_validation"))


def _satisfied(c, val) -> bool:
    if c is None:
        return val is None
    if c == "boolean":
        return isinstance(val, (bool, np.bool_))
    if c == "array-like":  # scikit-learn's _is_arraylike_not_scalar
        return (hasattr(val, "__len__") or hasattr(val, "shape") or hasattr(val, "__array__")) and not np.isscalar(val)
    if c.kind == "StrOptions":
        return isinstance(val, str) and val in c.args[0]
    if c.kind == "Options":
        return isinstance(val, c.args[0]) and val in c.args[1]
    kind, left, right = c.args
    closed = c.kwargs["closed"]
    if isinstance(val, (bool, np.bool_)):
        return False
    if kind is numbers.Integral:
        if not isinstance(val, numbers.Integral):
            return False
    elif not isinstance(val, numbers.Real) or val != val:  # a real number, not NaN
        return False
    left = -np.inf if left is None else left  # as scikit-learn: None is an infinite bound
    right = np.inf if right is None else right
    if val < left or (val == left and closed in ("right", "neither")):
        return False
    return not (val > right or (val == right and closed in ("left", "neither")))


def _describe(c) -> str:
    if c is None:
        return "None"
    if c == "boolean":
        return "an instance of 'bool' or 'numpy.bool_'"
    if c == "array-like":
        return "an array-like"
    if c.kind in ("StrOptions", "Options"):
        options = c.args[0] if c.kind == "StrOptions" else c.args[1]
        what = "a str" if c.kind == "StrOptions" else f"a {c.args[0].__name__}"
        return f"{what} among {sorted(options, key=repr)}"
    kind, left, right = c.args
    closed = c.kwargs["closed"]
    what = "an int" if kind is numbers.Integral else "a float"
    lo = "[" if closed in ("left", "both") and left is not None else "("
    hi = "]" if closed in ("right", "both") and right is not None else ")"
    return f"{what} in the range {lo}{'-inf' if left is None else left}, {'inf' if right is None else right}{hi}"


def _check_native(func_name: str, name: str, val, options) -> None:
    if any(_satisfied(c, val) for c in options):
        return
    texts = [_describe(c) for c in options]
    must = texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " or " + texts[-1]
    raise InvalidParameterError(f"The {name!r} parameter of {func_name} must be {must}. Got {val!r} instead.")
