"""Propensity scores shared by the data layer (SAR labeling, :mod:`pu_lib.labeling.sar`)
and the estimators (:mod:`pu_lib.sar`): the biased propensity estimate of Bekker's thesis."""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["MIN_PROPENSITY", "biased_propensity"]

#: floor of :func:`biased_propensity`, so that ``1 / e`` stays finite
MIN_PROPENSITY = 1e-12


def biased_propensity(e, bias):
    """A biased propensity estimate ``clip(e * bias, tiny, 1)`` (thesis section 5.6.2, Q1b).

    "The correct propensity score or label frequency was altered with a bias in
    {1.1, 1.3, 1.5}, multiplying the score with it for an overestimated or dividing for a
    negative one": ``bias > 1`` overestimates, ``bias < 1`` underestimates (pass e.g.
    ``1 / 1.5``).  The result is clipped to ``[tiny, 1]`` with ``tiny = 1e-12`` so that it
    stays a probability and ``1 / e`` stays finite.  ``e`` may be a scalar (a label
    frequency; a float is returned) or an array of propensity scores (an array is
    returned).  ValueError for a non-finite ``e`` or a ``bias`` that is not a finite
    number > 0.
    """
    if isinstance(bias, bool) or not isinstance(bias, numbers.Real) or not np.isfinite(bias) or not bias > 0:
        raise ValueError(f"bias must be a finite number > 0 (e.g. 1.5 or 1 / 1.5), got {bias!r}")
    arr = np.asarray(e, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError("e contains NaN or infinite values; a propensity score must be finite")
    out = np.clip(arr * float(bias), MIN_PROPENSITY, 1.0)
    return float(out) if out.ndim == 0 else out
