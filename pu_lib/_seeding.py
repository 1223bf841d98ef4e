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
    """Return a ``numpy.random.Generator`` from None, an int or a Generator."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None:
        return np.random.default_rng()
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        if seed < 0:
            raise ValueError(f"random_state must be a non-negative integer, got {seed}")
        return np.random.default_rng(int(seed))
    raise TypeError(f"random_state must be None, an int or a numpy Generator, got {type(seed).__name__}")
