"""Factory for the supervised base classifiers used inside PU methods.

:func:`make_base_estimator` builds an unfitted scikit-learn compatible classifier
from a short name (as used in experiment configuration files) plus optional
hyper-parameters. XGBoost is imported only when ``"xgboost"`` is requested, and
:mod:`pu_lib.hist_boost` (numba) only when ``"hist_boost"`` is: both by plain import
statements, since both sit at or below this floor (docs/developers.md, "Layout and
layers"); no name table or registry look-up is needed.
"""

from __future__ import annotations

from numbers import Integral

from pu_lib._optional import require
from pu_lib._seeding import seed_to_int as _seed_to_int
from pu_lib._validation import Interval, validate_params
from pu_lib.base_learners._logistic import WeightedLogisticRegression

__all__ = ["BASE_ESTIMATORS", "default_logistic_regression", "make_base_estimator"]

#: Names accepted by :func:`make_base_estimator`.
BASE_ESTIMATORS: tuple[str, ...] = (
    "logistic_regression",
    "random_forest",
    "xgboost",
    "decision_tree",
    "gaussian_nb",
    "weighted_logistic_regression",
    "linear_svm",
    "hist_boost",
)


@validate_params({"n_jobs": [None, Interval(Integral, None, -1, closed="right"),
                             Interval(Integral, 1, None, closed="left")]})
def make_base_estimator(name: str, params: dict | None = None, random_state=None, n_jobs=1):
    """Return a new, unfitted classifier.

    Parameters
    ----------
    name : one of :data:`BASE_ESTIMATORS`:

        * ``"logistic_regression"`` -- ``StandardScaler`` followed by
          ``sklearn.linear_model.LogisticRegression`` with ``max_iter=1000`` by default
          (``n_jobs`` is not passed: it has no effect for this estimator in
          scikit-learn >= 1.8). Standardising first makes lbfgs converge on raw
          feature scales (Bekker's thesis, 5.6.1, likewise scales every attribute
          before logistic regression); pass ``standardize: false`` in ``params`` for a
          bare ``LogisticRegression``;
        * ``"random_forest"`` -- ``sklearn.ensemble.RandomForestClassifier``;
        * ``"xgboost"`` -- ``xgboost.XGBClassifier`` with ``tree_method="hist"``;
        * ``"decision_tree"`` -- ``sklearn.tree.DecisionTreeClassifier``;
        * ``"gaussian_nb"`` -- ``sklearn.naive_bayes.GaussianNB`` (deterministic,
          takes neither ``random_state`` nor ``n_jobs``);
        * ``"weighted_logistic_regression"`` -- :class:`pu_lib.base_learners.WeightedLogisticRegression`
          (L2 logistic regression, ``C = 1``, no standardisation, negative sample weights
          allowed; the learner of Bekker's SAR experiments, deterministic).
        * ``"hist_boost"`` -- :class:`pu_lib.hist_boost.HistBoostClassifier` (XGBoost's
          ``hist`` booster with ``binary:logistic`` and XGBoost's defaults, compiled with
          numba; deterministic, one thread per model);
        * ``"linear_svm"`` -- ``StandardScaler`` followed by ``sklearn.svm.SVC(kernel="linear")``
          (no ``predict_proba`` unless ``probability: true``; scored by its
          ``decision_function``): Mordelet and Vert's PU bagging base and the PU Hellinger
          authors' (``expsetup.py``, on min-max scaled copies of the data). Scaling first
          matters: on raw Shuttle features libsvm took minutes per 1,000-row bag; pass
          ``standardize: false`` in ``params`` for a bare ``SVC``.
    params : hyper-parameters passed to the constructor. They override the defaults
        above, and an explicit ``random_state`` / ``n_jobs`` in ``params`` wins over
        the arguments of the same name. Unknown parameter names of the scikit-learn
        estimators raise ``ValueError``.
    random_state : None, int, ``numpy.random.Generator`` or ``RandomState``; set on estimators that
        have a ``random_state`` parameter.
    n_jobs : threads for estimators that support them (random forest, XGBoost).
    """
    if not isinstance(name, str) or name not in BASE_ESTIMATORS:
        raise ValueError(
            f"unknown base estimator {name!r}; valid names are {', '.join(BASE_ESTIMATORS)}"
        )
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ValueError(f"params must be a dict or None, got {type(params).__name__}")
    params = dict(params)
    seed = _seed_to_int(random_state)
    n_jobs = None if n_jobs is None else int(n_jobs)

    if name == "xgboost":
        purpose = "the XGBoost base estimator (also the default classifier of PULSCAR, PULSNAR and DEDPUL)"
        XGBClassifier = require("xgboost", purpose=purpose).XGBClassifier

        kwargs = {"tree_method": "hist", "n_jobs": n_jobs, "random_state": seed}
        if seed is None:
            kwargs.pop("random_state")
        kwargs.update(params)
        return XGBClassifier(**kwargs)

    standardize = False
    if name == "logistic_regression":
        from sklearn.linear_model import LogisticRegression as cls

        standardize = params.pop("standardize", True)
        if not isinstance(standardize, bool):
            raise ValueError(f"params.standardize must be true or false, got {standardize!r}")
        defaults = {"max_iter": 1000, "random_state": seed}
    elif name == "random_forest":
        from sklearn.ensemble import RandomForestClassifier as cls

        defaults = {"random_state": seed, "n_jobs": n_jobs}
    elif name == "decision_tree":
        from sklearn.tree import DecisionTreeClassifier as cls

        defaults = {"random_state": seed}
    elif name == "linear_svm":
        from sklearn.svm import SVC as cls

        standardize = params.pop("standardize", True)
        if not isinstance(standardize, bool):
            raise ValueError(f"params.standardize must be true or false, got {standardize!r}")
        defaults = {"kernel": "linear", "random_state": seed}
    elif name == "hist_boost":
        from pu_lib.hist_boost import HistBoostClassifier as cls  # numba: imported when asked for

        defaults = {"random_state": seed, "n_jobs": n_jobs}
    elif name == "weighted_logistic_regression":
        cls = WeightedLogisticRegression
        defaults = {}
    else:  # gaussian_nb
        from sklearn.naive_bayes import GaussianNB as cls

        defaults = {}

    valid = set(cls().get_params(deep=False))
    unknown = sorted(set(params) - valid)
    if unknown:
        raise ValueError(
            f"params for {name!r} contain unknown parameter(s) {unknown}; "
            f"valid parameters are {sorted(valid)}"
        )
    defaults.update(params)
    if standardize and name == "linear_svm":
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        return make_pipeline(StandardScaler(), cls(**defaults))
    if standardize:
        return default_logistic_regression(**defaults)
    return cls(**defaults)


def default_logistic_regression(**params):
    """``StandardScaler`` + ``LogisticRegression(max_iter=1000, **params)`` pipeline: the
    default base classifier of the PU baselines."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    kwargs = {"max_iter": 1000}
    kwargs.update(params)
    return make_pipeline(StandardScaler(), LogisticRegression(**kwargs))
