"""Deterministic seed derivation.

Every random choice in pu_lib is driven by an integer seed derived from a tuple of
keys by :func:`derive_seed`: ``sha256`` of the keys' ``repr`` joined with ``"\\x1f"``,
first 4 bytes read big-endian, i.e. an integer in ``[0, 2**32)``. The same keys give
the same seed on every machine, process and Python version (no use of ``hash()``,
which is salted per process). Global NumPy random state is never used.
"""

from __future__ import annotations

import hashlib

import numpy as np


def derive_seed(*keys) -> int:
    """Derive a 32-bit seed from ``keys`` (ints, strings, floats, tuples)."""
    text = "\x1f".join(repr(k) for k in keys)
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big")


def check_random_state(seed) -> np.random.Generator:
    """Return a ``numpy.random.Generator`` from None, an int, a Generator or a legacy
    ``numpy.random.RandomState`` (as scikit-learn accepts; drawn from once for a seed)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.RandomState):
        return np.random.default_rng(_draw_from_random_state(seed))
    if seed is None:
        return np.random.default_rng()
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        if seed < 0:
            raise ValueError(f"random_state must be a non-negative integer, got {seed}")
        return np.random.default_rng(int(seed))
    raise TypeError(
        f"random_state must be None, an int, a numpy Generator or RandomState, got {type(seed).__name__}")


def _draw_from_random_state(rs: np.random.RandomState) -> int:
    """One seed in ``[0, 2**32)`` from a legacy RandomState (advances its state once)."""
    return int(rs.randint(0, 2**32, dtype=np.uint64))


def seed_to_int(random_state, name: str = "random_state", *, fresh_if_none: bool = False) -> int | None:
    """Turn ``None`` / int / ``numpy.random.Generator`` / ``numpy.random.RandomState`` into
    an integer seed.

    scikit-learn and XGBoost take integer seeds; a ``Generator`` or a ``RandomState`` is
    consumed once to draw a seed in ``[0, 2**32)`` (so, as in scikit-learn, two fits with
    the same RandomState object differ, while two fresh ``RandomState(0)`` give the same). ``None`` stays ``None`` unless ``fresh_if_none``, in
    which case a seed is drawn from fresh OS entropy. Negative or non-integer values
    raise ``ValueError`` naming ``name``.
    """
    if random_state is None:
        return int(np.random.default_rng().integers(2**32)) if fresh_if_none else None
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**32))
    if isinstance(random_state, np.random.RandomState):
        return _draw_from_random_state(random_state)
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {random_state}")
        return int(random_state)
    raise ValueError(
        f"{name} must be None, a non-negative int, a numpy Generator or RandomState, "
        f"got {type(random_state).__name__}"
    )
