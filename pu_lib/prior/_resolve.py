"""The ``prior`` parameter of every PU classifier: its allowed values (:data:`PRIOR_CONSTRAINT`)
and its resolution into a number (:func:`resolve_prior`: a given prior, or one estimated by a
prior estimator given as an object or by name, :mod:`pu_lib.prior._names`). No prior
estimator imports this module."""

from __future__ import annotations

import numbers
from numbers import Real

from sklearn.base import clone
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

from pu_lib._validation import check_prior_feasible
from pu_lib.prior._names import PRIOR_ESTIMATORS, make_prior_estimator, prior_names
from pu_lib.prior.base import population_prior

__all__ = ["PRIOR_CONSTRAINT", "resolve_prior"]

#: the ``prior`` values every PU classifier accepts (resolved in ``fit`` by
#: :func:`resolve_prior`): a number in (0, 1), the name of a prior estimator of
#: :data:`pu_lib.prior._names.PRIOR_ESTIMATORS`, an estimator object with ``fit`` (cloned
#: and fitted), or None (a ``ValueError`` at ``fit`` for methods that need a prior)
PRIOR_CONSTRAINT = [
    Interval(Real, 0.0, 1.0, closed="neither"),
    StrOptions(set(PRIOR_ESTIMATORS)),
    HasMethods(["fit"]),
    None,
]


def resolve_prior(prior, X, s, scenario: str = "single_training_set", random_state=None, n_jobs=None,
                  sample_weight=None):
    """The class prior a PU classifier should use, from its ``prior`` parameter.

    ``prior`` is a number in (0, 1) (returned as is), the name of a prior estimator
    (:data:`pu_lib.prior._names.PRIOR_ESTIMATORS`: ``"tice"``, ``"pulscar"``,
    ``"pulsnar"``, ``"elkan_noto_prior"``, ...), or an (unfitted or fitted) estimator with
    ``fit(X, s)`` setting ``prior_`` and ``alpha_`` (e.g. ``ElkanNotoPrior(c_estimator="e2")``).
    An estimator or name is fitted on ``(X, s)`` -- a clone, so the argument is never
    modified; a name gets ``random_state`` and ``n_jobs``, and a clone whose
    ``random_state`` is None gets ``random_state``, so that the classifier's seed fixes
    the estimate. With ``sample_weight`` the estimator is fitted as
    ``fit(X, s, sample_weight=...)``; ``ValueError`` naming it when its ``fit`` takes no
    ``sample_weight``. Returns ``(prior, fitted_estimator_or_None)``.

    The prior, given or estimated, is checked against ``s``
    (:func:`pu_lib._validation.check_prior_feasible`): in the single-training-set
    scenario a prior below the labeled share is impossible and refused with a
    ``ValueError`` giving both numbers, whether it was given or estimated (the
    estimators of :mod:`pu_lib.prior` clip their estimates to the feasible region, so an
    impossible estimate comes from another estimator object: it is refused, not clipped,
    as its ``prior_`` is then not what it says). An estimate of exactly 1 (or 0) is
    refused as outside (0, 1): no classifier can learn from it.
    """
    if prior is None:
        raise ValueError(
            "prior is required: the class prior pi (a number in (0, 1)), the name of a prior "
            f"estimator ({', '.join(prior_names())}) or an estimator with fit(X, s) and prior_"
        )
    if isinstance(prior, str):
        est = make_prior_estimator(prior, random_state=random_state, n_jobs=n_jobs)
    elif hasattr(prior, "fit") and not isinstance(prior, numbers.Real):
        est = clone(prior)
        params = est.get_params(deep=False)
        if "random_state" in params and params["random_state"] is None and random_state is not None:
            est.set_params(random_state=random_state)
    else:
        return check_prior_feasible(prior, s, scenario, sample_weight), None
    if sample_weight is None:
        est.fit(X, s)
    else:
        from sklearn.utils.validation import has_fit_parameter

        if not has_fit_parameter(est, "sample_weight"):
            raise ValueError(
                f"prior estimator {type(est).__name__} does not accept sample_weight in fit; give prior as a "
                "number, or a prior estimator whose fit takes sample_weight, or fit without sample_weight"
            )
        est.fit(X, s, sample_weight=sample_weight)
    value = population_prior(est, scenario)
    return check_prior_feasible(value, s, scenario, sample_weight,
                                f"prior estimated by {type(est).__name__} ({scenario})"), est
