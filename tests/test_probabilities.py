"""What ``predict_proba`` returns (:mod:`pu_lib.calibration`): the docs table matches the
classifiers' ``_proba_kind``; every ``"posterior"`` claim is calibrated on SCAR data with a
known posterior; :class:`pu_lib.calibration.PUCalibratedClassifier` calibrates a score.

**Data.** Two Gaussians in 2-d, ``x | y ~ N(+-mu, I)`` with ``|mu| = 1.5``, class prior
``pi = 0.4``, so the true posterior is ``P(y = 1 | x) = sigmoid(2 mu.x + log(pi / (1 - pi)))``
and spreads over all of (0, 1); SCAR labels with ``c = 0.5`` (labeled fraction 0.2).
2,000 training rows (seed 0), 4,000 test rows (seed 99).

**Measure.** Expected calibration error against the *true* posterior: the test rows binned
by the predicted probability in 10 equal bins of [0, 1], the row-weighted mean over bins
of ``|mean predicted - mean true posterior|``. Comparing with the true posterior (not with
0/1 classes) removes the label noise, so what is left is the model's error.

**Threshold 0.1.** Measured with this file's data and settings (2-core AMD EPYC), over
training seeds 0-5: the ``"posterior"`` classifiers give 0.003 (the oracle logistic
regression) to 0.063 (uPU by XGBoost, 30 rounds), and PU Extra Trees (20 trees) up to 0.09
on seed 3 (0.035-0.046 on the others) -- the estimation error of 2,000 PU rows: trees with
few rows per leaf, boosting rounds, small networks. A probability off by the label
frequency (the naive ``P(s = 1 | x)``) gives 0.23 and Ada-PU's uncalibrated link (100 rounds) 0.40, more
than twice the threshold; wrapped in :class:`PUCalibratedClassifier` (isotonic, 3 folds)
they give at most 0.025 over the same seeds. The tests use training seed 0.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from conftest import REPO, is_neural, torch_or_skip
from pu_lib.workflow import registry
from pu_lib.base import fit_inputs
from pu_lib.calibration import PROBA_KINDS, PUCalibratedClassifier, proba_doc, proba_kind
from pu_lib.utils.estimator_checks import parametrize_with_checks

ECE_THRESHOLD = 0.1
PI, C, SHIFT = 0.4, 0.5, 1.5


def scar_gaussians(n, seed, pi=PI, c=C, shift=SHIFT):
    """``(X, s, y, posterior)``: the module docstring's data."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < pi).astype(int)
    mu = np.full(2, shift / np.sqrt(2))
    X = rng.normal(size=(n, 2)) + np.where(y[:, None] == 1, mu, -mu)
    posterior = 1.0 / (1.0 + np.exp(-(2 * X @ mu + np.log(pi / (1 - pi)))))
    s = ((y == 1) & (rng.random(n) < c)).astype(int)
    return X, s, y, posterior


def ece(p, posterior, n_bins=10):
    """Expected calibration error of ``p`` against the true posterior (module docstring)."""
    bins = np.minimum((p * n_bins).astype(int), n_bins - 1)
    return sum(np.mean(bins == b) * abs(p[bins == b].mean() - posterior[bins == b].mean())
               for b in np.unique(bins))


X_TRAIN, S_TRAIN, Y_TRAIN, _ = scar_gaussians(2000, 0)
X_TEST, _, _, POSTERIOR_TEST = scar_gaussians(4000, 99)

NEURAL_SMALL = {"hidden_sizes": (16,), "epochs": 50, "batch_size": 1000, "learning_rate": 3e-2, "n_jobs": 1}
#: registry name -> parameters (speed: fewer trees, rounds and a small network; the true
#: prior and label frequency for the methods that take them)
PARAMS = {
    "pu_extra_trees": {"n_estimators": 20, "prior": PI},
    "supervised_et": {"n_estimators": 20},
    "pu_hellinger_tree": {"prior": PI},
    "upu_xgb": {"n_estimators": 30, "prior": PI},
    "label_frequency_weighted": {"label_frequency": C},
    "vpu": NEURAL_SMALL,
}
#: posterior claims of non-default parameters (kind from the class's _proba_kind property)
EXTRA_POSTERIORS = [("upu", {"loss": "logistic", "prior": PI, **NEURAL_SMALL})]


def _fit(name, params):
    if is_neural(name):
        torch_or_skip()
    est = registry.make_estimator(name, params, random_state=0)
    inputs = fit_inputs(est)
    kw = {}
    if "y_true" in inputs:
        kw["y_true"] = Y_TRAIN
    if "propensity" in inputs:
        kw["propensity"] = np.full(S_TRAIN.shape[0], C)  # SCAR: every propensity is c
    if "propensity_attributes" in inputs:
        kw["propensity_attributes"] = []  # no propensity attributes: SCAR
    return est.fit(X_TRAIN, S_TRAIN, **kw)


POSTERIOR_CASES = [(n, PARAMS.get(n, {})) for n in registry.names("classifier")
                   if proba_kind(registry.make_estimator(n)) == "posterior"] + EXTRA_POSTERIORS


# ------------------------------------------------------------------ the table


def test_docs_table_is_current():
    page = (REPO / "docs" / "probabilities.md").read_text(encoding="utf-8")
    assert page == registry.probabilities_markdown(), \
        "regenerate: python -m pu_lib.workflow.registry --probabilities docs/probabilities.md"


@pytest.mark.parametrize("name", registry.names("classifier"))
def test_every_classifier_declares_its_kind_in_code_and_docstring(name):
    """A known ``_proba_kind`` on the class itself, and a class docstring paragraph
    ``**predict_proba**`` naming that kind (or, for a parameter-dependent kind, every kind
    the property can return)."""
    cls = registry.method_class(name)
    assert "_proba_kind" in vars(cls), f"{cls.__name__} declares no _proba_kind of its own"
    kind = proba_kind(registry.make_estimator(name))
    assert kind in PROBA_KINDS
    named = set(re.findall(r'kind ``"(\w+)"``', proba_doc(cls) + (cls.__doc__ or "")))
    assert kind in named, (cls.__name__, kind, named)
    if isinstance(vars(cls)["_proba_kind"], str):
        assert named == {kind}, (cls.__name__, kind, named)


def test_proba_kind_names_an_undeclared_estimator():
    class NoKind:
        pass

    with pytest.raises(ValueError, match="NoKind declares no known _proba_kind"):
        proba_kind(NoKind())


def test_the_kind_follows_the_parameter_it_depends_on():
    make = registry.make_estimator
    assert proba_kind(make("pu_hellinger_tree", {"proba": "labeled_fraction"})) == "labeled"
    assert proba_kind(make("upu_xgb", {"loss": "sigmoid"})) == "score"
    assert proba_kind(make("upu", {"loss": "logistic"})) == "posterior"
    assert proba_kind(PUCalibratedClassifier(make("ada_pu"), prior=PI)) == "posterior"


# ------------------------------------------------------------------ calibration of the claims


@pytest.mark.parametrize("name, params", POSTERIOR_CASES,
                         ids=[f"{n}-{p['loss']}" if "loss" in p else n for n, p in POSTERIOR_CASES])
def test_posterior_claims_are_calibrated(name, params):
    p = _fit(name, params).predict_proba(X_TEST)[:, 1]
    assert ece(p, POSTERIOR_TEST) < ECE_THRESHOLD


def test_the_threshold_rejects_an_uncalibrated_probability():
    """The naive classifier's ``P(s = 1 | x)`` (too low by c = 0.5) is far above it."""
    p = _fit("naive", {}).predict_proba(X_TEST)[:, 1]
    assert ece(p, POSTERIOR_TEST) > 2 * ECE_THRESHOLD


@pytest.mark.parametrize("name, params", [("ada_pu", {"prior": PI}), ("naive", {})])
def test_the_wrapper_calibrates_a_score(name, params):
    est = registry.make_estimator(name, params, random_state=0)
    raw = est.fit(X_TRAIN, S_TRAIN).predict_proba(X_TEST)[:, 1]
    assert ece(raw, POSTERIOR_TEST) > 2 * ECE_THRESHOLD
    clf = PUCalibratedClassifier(est, prior=PI, method="isotonic", cv=3, random_state=0).fit(X_TRAIN, S_TRAIN)
    p = clf.predict_proba(X_TEST)[:, 1]
    assert ece(p, POSTERIOR_TEST) < ECE_THRESHOLD
    assert clf.c_ == pytest.approx(S_TRAIN.mean() / PI)
    assert np.array_equal(clf.predict(X_TEST), (p >= 0.5).astype(int))


def test_the_wrapper_in_the_case_control_scenario():
    """Case-control: labeled rows drawn from the positives, unlabeled rows from the whole
    population (prior ``PI``); the odds formula gives ``P(y = 1 | x)`` of the population."""
    rng = np.random.default_rng(1)
    X_u, _, _, _ = scar_gaussians(2000, 2)
    mu = np.full(2, SHIFT / np.sqrt(2))
    X_l = rng.normal(size=(500, 2)) + mu
    X = np.vstack([X_l, X_u])
    s = np.r_[np.ones(500, int), np.zeros(2000, int)]
    base = registry.make_estimator("naive")
    clf = PUCalibratedClassifier(base, prior=PI, scenario="case_control", cv=3, random_state=0).fit(X, s)
    assert ece(clf.predict_proba(X_TEST)[:, 1], POSTERIOR_TEST) < ECE_THRESHOLD


# ------------------------------------------------------------------ the wrapper's API


def _small():
    X, s, _, _ = scar_gaussians(300, 3)
    return X, s


def test_a_prior_below_the_labeled_fraction_is_refused():
    X, s = _small()
    with pytest.raises(ValueError, match="below the labeled share"):
        PUCalibratedClassifier(registry.make_estimator("naive"), prior=0.05).fit(X, s)


def test_too_few_labeled_rows_for_the_folds_are_named():
    X, s = _small()
    s = np.zeros_like(s)
    s[:3] = 1
    with pytest.raises(ValueError, match="cv=5 folds need at least 5 labeled"):
        PUCalibratedClassifier(registry.make_estimator("naive"), prior=0.4).fit(X, s)


@pytest.mark.parametrize("params, match", [({"method": "beta"}, "method"), ({"cv": 1}, "cv"),
                                           ({"prior": 1.5}, "prior")])
def test_bad_parameters_are_named(params, match):
    X, s = _small()
    clf = PUCalibratedClassifier(registry.make_estimator("naive"), **{"prior": 0.4, **params})
    with pytest.raises(ValueError, match=match):
        clf.fit(X, s)


def test_zero_weights_are_removed_rows_and_sigmoid_runs():
    X, s = _small()
    w = np.ones(s.shape[0])
    w[::7] = 0.0
    keep = w > 0
    base = registry.make_estimator("naive")
    for method in ("isotonic", "sigmoid"):
        a = PUCalibratedClassifier(base, prior=0.4, method=method, cv=3, random_state=0).fit(X, s, sample_weight=w)
        b = PUCalibratedClassifier(base, prior=0.4, method=method, cv=3, random_state=0).fit(X[keep], s[keep])
        pa, pb = a.predict_proba(X)[:, 1], b.predict_proba(X)[:, 1]
        assert np.allclose(pa, pb) and np.all((pa >= 0) & (pa <= 1))


def test_a_prior_estimator_name_is_fitted():
    X, s = _small()
    clf = PUCalibratedClassifier(registry.make_estimator("naive"), prior="elkan_noto_prior", cv=3,
                                 random_state=0).fit(X, s)
    assert clf.prior_estimator_ is not None and 0 < clf.prior_ <= 1


@pytest.mark.slow  # about 10 s in all: scikit-learn's checks and the PU checks, each fitting cv = 2 clones and a refit
@parametrize_with_checks([PUCalibratedClassifier(registry.make_estimator("naive"), prior=0.99, cv=2, random_state=0)])
def test_the_wrapper_passes_the_estimator_checks(estimator, check):
    """prior 0.99: the checks fit on about half the rows labeled, and the prior is at least
    the labeled fraction."""
    check(estimator)
