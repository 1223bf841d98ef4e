"""Config parameters of the labeling mechanisms: names, defaults and checks.

Kept apart from :mod:`pu_lib.labeling.label_sets` (which maps the names to the mechanism
functions) because the mechanisms themselves validate through
:func:`validate_mechanism_params`.
"""

from __future__ import annotations

from pu_lib._validation import check_fraction
from pu_lib.labeling._common import check_count

__all__ = ["validate_mechanism_params"]

_NO_DEFAULT = object()

# name -> {param: default}; _NO_DEFAULT marks a required parameter
_PARAM_SPECS: dict[str, dict] = {
    "scar_c": {"c": _NO_DEFAULT},
    "scar_flip": {"flip_ratio": _NO_DEFAULT},
    "scar_count": {"n_labeled": _NO_DEFAULT},
    "case_control": {"n_labeled": _NO_DEFAULT},
    "sar": {"k": _NO_DEFAULT, "selection": "random", "p_minus": 0.2, "p_plus": 0.8, "min_std": 0.6,
            "attributes": None},
    "snar_subclass": {"n_labeled_per_group": _NO_DEFAULT},
    "snar_prob": {"p_minus": 0.2, "p_plus": 0.8},
    "pulsnar_alpha": {"alpha": _NO_DEFAULT, "snar": False},
}

FRACTION_MECHANISMS = ("scar_c", "scar_flip", "pulsnar_alpha")
COUNT_MECHANISMS = ("scar_count", "case_control", "snar_subclass")
FUNCTION_MECHANISMS = ("sar", "snar_prob")  # e(x) is a function of x, set up once

# parameter -> (low, high, closed) of its interval (pu_lib._validation.check_fraction)
_FRACTIONS = {
    "c": (0.0, 1.0, "right"),
    "flip_ratio": (0.0, 1.0, "left"),
    "alpha": (0.0, 1.0, "left"),
    "p_minus": (0.0, 1.0, "both"),
    "p_plus": (0.0, 1.0, "both"),
    "min_std": (0.0, 2.0, "both"),
}
_COUNTS = ("n_labeled", "k")
_MINIMUM = {"k": 0}  # count parameters that may be 0 (default minimum 1); sar k = 0: SCAR
#: selection rules of the sar propensity attributes (pu_lib.labeling.sar.SELECTIONS)
SAR_SELECTIONS = ("random", "correlated", "anticorrelated")


def _resolve(mechanism: str, params) -> dict:
    """The parameters of ``mechanism`` with defaults filled in (no range checks)."""
    if mechanism not in _PARAM_SPECS:
        raise ValueError(f"unknown mechanism {mechanism!r}; expected one of {sorted(_PARAM_SPECS)}")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ValueError(f"{mechanism}: params must be a dict, got {type(params).__name__}")
    spec = _PARAM_SPECS[mechanism]
    unknown = sorted(set(params) - set(spec))
    if unknown:
        raise ValueError(f"{mechanism}: unknown parameter(s) {unknown}; allowed: {sorted(spec)}")
    out = {}
    for key, default in spec.items():
        if key in params:
            out[key] = params[key]
        elif default is _NO_DEFAULT:
            raise ValueError(f"{mechanism}: missing required parameter {key!r}")
        else:
            out[key] = default
    return out


def _check_attributes(attrs, k: int):
    if attrs is None:
        return None
    if isinstance(attrs, (str, bytes)) or not hasattr(attrs, "__len__"):
        raise ValueError(f"must be a list of column indices, got {attrs!r}")
    attrs = [check_count(a, "attribute index", minimum=0) for a in attrs]
    if len(attrs) != k:
        raise ValueError(f"has {len(attrs)} entries but k={k}")
    return attrs


def _check_group_counts(counts):
    if not isinstance(counts, dict):
        return check_count(counts, "n_labeled_per_group")
    if not counts:
        raise ValueError("dict is empty")
    counts = {g: check_count(v, f"count for subclass {g!r}", minimum=0) for g, v in counts.items()}
    if sum(counts.values()) < 1:
        raise ValueError("all counts are 0; at least one positive must be labeled")
    return counts


def validate_mechanism_params(mechanism: str, params: dict) -> dict:
    """Check a mechanism's config parameters and fill defaults.

    Raises ValueError naming the mechanism and the field for an unknown mechanism, an
    unknown or missing parameter, or an out-of-range value (``c`` outside (0, 1],
    ``flip_ratio`` outside [0, 1), ``k < 0`` (sar ``k = 0``: no propensity attribute, a
    constant propensity), ``selection`` not one of ``random``, ``correlated``,
    ``anticorrelated``, not ``0 <= p_minus < p_plus <= 1``, ``n_labeled < 1``, ...).
    """
    out = _resolve(mechanism, params)

    def checked(key, check, *args):
        try:
            out[key] = check(out[key], *args)
        except ValueError as exc:
            raise ValueError(f"{mechanism}: invalid {key}: {exc}") from None

    for key in out:
        if key in _FRACTIONS:
            checked(key, check_fraction, key, *_FRACTIONS[key])
        elif key in _COUNTS:
            checked(key, check_count, key, _MINIMUM.get(key, 1))
    if "p_minus" in out and not out["p_minus"] < out["p_plus"]:
        raise ValueError(f"{mechanism}: invalid p_minus/p_plus: need 0 <= p_minus < p_plus <= 1, "
                         f"got p_minus={out['p_minus']}, p_plus={out['p_plus']}")
    if mechanism == "sar":
        if out["selection"] not in SAR_SELECTIONS:
            raise ValueError(f"{mechanism}: invalid selection: must be one of {list(SAR_SELECTIONS)}, "
                             f"got {out['selection']!r}")
        checked("attributes", _check_attributes, out["k"])
    if mechanism == "pulsnar_alpha" and not isinstance(out["snar"], bool):
        raise ValueError(f"{mechanism}: invalid snar: must be true or false, got {out['snar']!r}")
    if mechanism == "snar_subclass":
        checked("n_labeled_per_group", _check_group_counts)
    return out
