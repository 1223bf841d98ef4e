"""Sparse ``X`` (scipy CSR / CSC) for the estimators whose learners take it.

Which estimators take sparse input is declared once, by each class's ``_accepts_sparse``
(:func:`pu_lib._validation.accepts_sparse`); the others refuse it with
:class:`pu_lib._validation.SparseInputError`, whose message names those that take it.

The reference of each sparse fit is a dense fit with the same seed:

* scikit-learn learners (linear models, trees) and the neural networks read the entries a
  sparse matrix does not store as zeros: the reference is ``X.toarray()``;
* XGBoost reads them as *missing values* (dmlc/xgboost#21, #1634): the reference is the
  dense array with NaN in place of the absent entries (PULSCAR, PULSNAR, DEDPUL, which
  take NaN). Against ``X.toarray()`` itself the models differ (zeros are values there).
  The uPU / nnPU XGBoost classifiers and PN boosting with XGBoost refuse NaN in dense
  input, so they are compared on a CSR / CSC matrix that stores its zeros (XGBoost reads
  a stored zero as the value 0) with ``X.toarray()``, and
  :func:`test_xgboost_reads_absent_entries_as_missing_not_as_zeros` shows the difference
  when the zeros are absent.

Tolerances: XGBoost, scikit-learn's trees and the networks see the same numbers and give
the same result up to float rounding (1e-6); scikit-learn's lbfgs on a sparse and a dense
matrix sums in another order, and PUWeightedLogisticRegression scales a sparse matrix
without centring it (its intercept absorbs the shift), so those agree up to the solver's
tolerance (1e-3 on probabilities).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression

from conftest import torch_or_skip
from pu_lib.workflow import registry
from pu_lib._validation import SparseInputError, accepts_sparse
from pu_lib.workflow.registry import sparse_methods, sparse_methods_text
from pu_lib.prior.base import BasePriorEstimator

NEURAL = {"hidden_sizes": (8,), "epochs": 3, "batch_size": 64, "dtype": "float64"}
#: registry name -> (parameters that make it take sparse input and keep it cheap, reference kind)
SPARSE = {
    "naive": ({"estimator": LogisticRegression()}, "zeros"),
    "elkan_noto": ({"estimator": LogisticRegression()}, "zeros"),
    "elkan_noto_pulearn": ({"estimator": LogisticRegression()}, "zeros"),
    "rank_pruning": ({"estimator": LogisticRegression(), "n_folds": 2}, "zeros"),
    "pu_bagging": ({"estimator": LogisticRegression(), "n_estimators": 3}, "zeros"),
    "pu_weighted_lr": ({}, "solver"),
    "supervised": ({"estimator": LogisticRegression()}, "zeros"),
    "upu_xgb": ({"n_estimators": 5, "prior": 0.5}, "stored"),
    "nnpu_xgb": ({"n_estimators": 5, "prior": 0.5}, "stored"),
    "imbalanced_nnpu_xgb": ({"n_estimators": 5, "prior": 0.5}, "stored"),
    "nnpu_xgb_csboost": ({"n_estimators": 5, "prior": 0.5}, "stored"),
    "imbalanced_nnpu_xgb_csboost": ({"n_estimators": 5, "prior": 0.5}, "stored"),
    "pn_boosting": ({"n_estimators": 5}, "zeros"),
    "upu": ({"prior": 0.5, **NEURAL}, "zeros"),
    "nnpu": ({"prior": 0.5, **NEURAL}, "zeros"),
    "imbalanced_nnpu": ({"prior": 0.5, **NEURAL}, "zeros"),
    "vpu": (dict(NEURAL), "zeros"),
    "selfpu": ({"prior": 0.5, **NEURAL, "batch_norm": False}, "zeros"),
    "pulscar": ({"n_folds": 2, "xgb_params": {"n_estimators": 5}}, "missing"),
    "pulsnar": ({"n_folds": 2, "xgb_params": {"n_estimators": 5}, "max_clusters": 2}, "missing"),
    "dedpul": ({"n_folds": 2, "xgb_params": {"n_estimators": 5}}, "missing"),
    "alphamax": ({"n_folds": 2, "xgb_params": {"n_estimators": 5}}, "missing"),
    "alphamax_n": ({"n_folds": 2, "xgb_params": {"n_estimators": 5}}, "missing"),
    "pe": ({}, "zeros"),
    "pen_l1": ({}, "zeros"),
}
#: further sparse-capable settings of a method: (name, params, reference kind)
VARIANTS = [
    ("pn_boosting", {"n_estimators": 5, "booster": "gradient_boosting"}, "zeros"),
    ("pn_boosting", {"n_estimators": 5, "booster": "xgboost"}, "stored"),
]
NEURAL_NAMES = {"upu", "nnpu", "imbalanced_nnpu", "vpu", "selfpu"}


def _data(n=160, d=6, seed=0):
    """PU data with 60% of the entries zero, none of the others zero."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.5
    X = rng.normal(size=(n, d)) + 1.5 * y[:, None]
    X[rng.random(X.shape) < 0.6] = 0.0
    s = (y & (rng.random(n) < 0.6)).astype(np.int64)
    return X, s, y.astype(np.int64)


def _make(name, params):
    if name in NEURAL_NAMES:
        torch_or_skip()
    return registry.make_estimator(name, params, random_state=0)


def _fit(est, X, s, y):
    if "y_true" in getattr(est, "__metadata_request__fit", {}):
        return est.fit(X, s, y_true=y)
    return est.fit(X, s)


def _output(est, X):
    if isinstance(est, BasePriorEstimator):
        return np.array([est.alpha_])
    return est.predict_proba(X)[:, 1]


def _cases():
    return [(n, p, k) for n, (p, k) in SPARSE.items()] + VARIANTS


def test_the_sparse_cases_are_the_sparse_capable_methods():
    """Every method that takes sparse input (by default or with a parameter) is tested here."""
    assert set(SPARSE) == set(sparse_methods())


def test_the_sparse_input_error_names_the_sparse_capable_methods():
    """SparseInputError's list is a constant (the estimators never read the registry); it is
    the registry's current list."""
    from pu_lib._validation import SPARSE_METHODS_TEXT

    assert SPARSE_METHODS_TEXT == sparse_methods_text()


#: CSC (converted to CSR by the one validation step) on one method of each kind of learner
CSC = {"naive", "pu_weighted_lr", "nnpu_xgb", "pn_boosting", "nnpu", "pulscar", "pulsnar"}


def _format_cases():
    return [(n, p, k, fmt) for n, p, k in _cases() for fmt in ("csr", "csc")
            if fmt == "csr" or (n in CSC and "booster" not in p)]


@pytest.mark.parametrize(("name", "params", "kind", "fmt"), _format_cases(),
                         ids=[f"{n}-{p.get('booster', '')}-{f}" for n, p, _, f in _format_cases()])
def test_sparse_fit_equals_the_dense_fit(name, params, kind, fmt):
    X, s, y = _data()
    est = _make(name, params)
    assert accepts_sparse(est)
    Xs = sp.csr_matrix(X) if fmt == "csr" else sp.csc_matrix(X)
    if kind == "stored":  # every zero stored: 60% of the entries are explicit zeros
        Xs = sp.csr_matrix(X + 1.0) if fmt == "csr" else sp.csc_matrix(X + 1.0)
        Xs.data -= 1.0
        assert Xs.nnz == X.size
    dense = np.where(X == 0.0, np.nan, X) if kind == "missing" else X
    got = _output(_fit(est, Xs, s, y), Xs)
    ref = _output(_fit(_make(name, params), dense, s, y), dense)
    atol = 1e-3 if kind == "solver" else 1e-6
    np.testing.assert_allclose(got, ref, rtol=0, atol=atol)
    # sparse prediction input on a model fitted on dense input (PUWeightedLogisticRegression
    # fitted on dense input centres its columns, which a sparse matrix cannot be)
    if not isinstance(est, BasePriorEstimator) and kind != "solver":
        fitted_dense = _fit(_make(name, params), dense, s, y)
        np.testing.assert_allclose(_output(fitted_dense, Xs), ref, rtol=0, atol=1e-6)


def test_xgboost_reads_absent_entries_as_missing_not_as_zeros():
    """The documented semantics: nnPU-XGBoost on a CSR matrix without its zeros is not
    nnPU-XGBoost on the array with zeros (the absent entries are missing values; PULSCAR
    equals the NaN reference above)."""
    X, s, y = _data()
    params, _ = SPARSE["nnpu_xgb"]
    got = _output(_fit(_make("nnpu_xgb", params), sp.csr_matrix(X), s, y), sp.csr_matrix(X))
    zeros = _output(_fit(_make("nnpu_xgb", params), X, s, y), X)
    assert np.abs(got - zeros).max() > 1e-3


@pytest.mark.parametrize("name", [n for n in registry.names() if n not in SPARSE])
def test_dense_only_estimators_name_the_sparse_capable_ones(name):
    X, s, y = _data()
    if name in ("pu_extra_trees", "pu_decision_tree", "pu_hellinger_tree", "pu_hellinger_forest", "ada_pu"):
        est = registry.make_estimator(name, {"prior": 0.5}, random_state=0)
    else:
        est = registry.make_estimator(name, random_state=0)
    assert not accepts_sparse(est)
    kwargs = {"propensity": np.full(s.shape[0], 0.5)} if name == "propensity_weighted" else {}
    with pytest.raises(SparseInputError, match=r"sparse matrix.*toarray.*take sparse input: .*pulscar"):
        est.fit(sp.csr_matrix(X), s, **kwargs)


def test_a_base_learner_without_sparse_support_keeps_the_error():
    """naive with its default StandardScaler + LogisticRegression (centring would fill the
    matrix): refused, and the message says which base learners make it take sparse input."""
    X, s, _ = _data()
    est = registry.make_estimator("naive", random_state=0)
    with pytest.raises(SparseInputError, match=r"NaivePUClassifier with these parameters.*with a base learner that takes sparse input.*: naive"):
        est.fit(sp.csr_matrix(X), s)


def test_sparse_tag_follows_the_declaration():
    from sklearn.utils import get_tags

    for name in registry.names():
        params = SPARSE.get(name, ({}, None))[0] if name not in NEURAL_NAMES else {}
        est = registry.make_estimator(name, params)
        assert get_tags(est).input_tags.sparse is accepts_sparse(est), name
