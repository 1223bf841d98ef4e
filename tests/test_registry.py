"""pu_lib.workflow.registry: the one place a method is registered, and what comes from it."""

from __future__ import annotations

import pytest

from pu_lib.workflow import registry


def test_every_entry_is_an_estimator_of_its_kind():
    """A classifier entry makes a scikit-learn classifier (ClassifierMixin: predict,
    predict_proba, score; is_classifier), a prior entry a BasePriorEstimator (fit sets
    alpha_, prior_, c_) that is no classifier; the class is the registered one. Every entry
    is fitted and used by scikit-learn's estimator checks (test_sklearn_checks.py)."""
    from sklearn.base import BaseEstimator, ClassifierMixin, is_classifier

    from pu_lib.prior.base import BasePriorEstimator

    for name in registry.names():
        cls = registry.method_class(name)
        est = registry.make_estimator(name)
        assert type(est) is cls and isinstance(est, BaseEstimator), name
        if registry.METHODS[name].kind == "classifier":
            assert isinstance(est, ClassifierMixin) and is_classifier(est), name
            assert callable(getattr(est, "predict_proba", None)), name
        else:
            assert isinstance(est, BasePriorEstimator) and not is_classifier(est), name
            assert not hasattr(cls, "predict"), name
        assert registry.METHODS[name].takes_base == ("estimator" in est.get_params(deep=False)), name


def test_names_by_kind_partition_the_registry():
    assert set(registry.names("classifier")) | set(registry.names("prior")) == set(registry.names())
    assert not set(registry.names("classifier")) & set(registry.names("prior"))
    assert registry.names("prior") == ["tice", "pulscar", "pulsnar", "elkan_noto_prior", "km1", "km2", "dedpul",
                                       "alphamax", "alphamax_n", "pe", "pen_l1"]
    with pytest.raises(ValueError, match="kind must be one of"):
        registry.names("regressor")


def test_unknown_names_and_parameters_are_named_in_the_error():
    with pytest.raises(ValueError, match=r"unknown method 'nope'; known: \['naive'"):
        registry.get("nope")
    with pytest.raises(ValueError, match="unknown prior method 'naive'"):
        registry.get("naive", kind="prior")
    with pytest.raises(ValueError, match=r"params\.bogus: not a parameter of PUExtraTreesClassifier"):
        registry.make_estimator("pu_extra_trees", {"bogus": 1})


def test_make_estimator_sets_seed_and_jobs_only_where_taken():
    est = registry.make_estimator("pu_extra_trees", {"n_estimators": 3}, random_state=7, n_jobs=2)
    assert (est.n_estimators, est.random_state, est.n_jobs) == (3, 7, 2)
    naive = registry.make_estimator("naive", random_state=7, n_jobs=2)
    assert naive.random_state == 7 and "n_jobs" not in naive.get_params()


def test_the_config_schema_allows_exactly_the_registered_names(schema_path):
    from pu_lib.workflow.experiments.config import _load_schema, with_registry_names

    schema = with_registry_names(_load_schema(schema_path))
    enum = schema["properties"]["methods"]["additionalProperties"]["properties"]["method"]["enum"]
    assert enum == registry.names()


def test_parameter_schema_lists_defaults_and_constraints():
    schema = registry.parameter_schema("pu_extra_trees")
    assert schema["n_estimators"]["default"] == 100
    assert schema["risk"]["default"] == "nnpu"
    assert any("nnpu" in c for c in schema["risk"]["constraints"])


def test_docs_methods_page_is_current(repo):
    page = (repo / "docs" / "methods.md").read_text(encoding="utf-8")
    assert page == registry.markdown(), "regenerate: python -m pu_lib.workflow.registry docs/methods.md"


def _public_estimator_classes():
    from pu_lib.base_learners import WeightedLogisticRegression
    from pu_lib.calibration import PUCalibratedClassifier
    from pu_lib.hist_boost import HistBoostClassifier

    classes = {WeightedLogisticRegression, PUCalibratedClassifier, HistBoostClassifier}
    for name in registry.names():
        try:
            classes.add(registry.method_class(name))
        except ImportError:  # an optional dependency is missing
            continue
    return sorted(classes, key=lambda c: c.__name__)


@pytest.mark.parametrize("cls", _public_estimator_classes(), ids=lambda c: c.__name__)
def test_constructors_are_keyword_only(cls):
    """As scikit-learn's: every parameter keyword-only, but a meta-estimator's leading
    ``estimator`` (scikit-learn's CalibratedClassifierCV, BaggingClassifier); a positional
    value fails with Python's TypeError."""
    import inspect

    params = [p for p in inspect.signature(cls.__init__).parameters.values() if p.name != "self"]
    positional = [p.name for p in params if p.kind is not p.KEYWORD_ONLY]
    assert positional in ([], ["estimator"]), f"{cls.__name__}: positional parameters {positional}"
    if positional == [] and params:
        with pytest.raises(TypeError, match="positional argument"):
            cls(params[0].default if params[0].default is not inspect.Parameter.empty else None)
