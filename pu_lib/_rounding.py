"""Counts from real numbers, one way for the whole package.

* :func:`round_half_up` -- ``floor(x + 0.5)`` with a tolerance of :data:`ROUND_TOL`
  against floating-point representation error (``0.3 * 5`` is ``1.4999999999999998``;
  it rounds to 2 as the decimal 1.5 does). Every "round(x)" of a count in the papers'
  protocols (labeled counts, flips, hold-out sizes) uses it.
* :func:`largest_remainder` -- integers summing exactly to a total, proportional to
  weights (Hamilton's method), with optional per-entry caps and a tie rule.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["ROUND_TOL", "largest_remainder", "round_half_up"]

#: tolerance of :func:`round_half_up` against floating-point representation error
ROUND_TOL = 1e-9


def round_half_up(x: float) -> int:
    """``floor(x + 0.5)`` (halves round up), tolerant to ``ROUND_TOL`` below a half."""
    return int(math.floor(float(x) + 0.5 + ROUND_TOL))


def largest_remainder(total: int, weights, caps=None, ties: str = "low") -> np.ndarray:
    """Non-negative integers summing to ``total``, proportional to ``weights``.

    Each entry gets ``floor(total * w_i / sum w)``; the units left over go to the largest
    fractional parts, ties to the lower index (``ties="low"``) or the higher one
    (``ties="high"``). With ``caps``, no entry exceeds its cap: a capped entry's excess is
    redistributed over the others in proportion to their weights, repeatedly; ``ValueError``
    when the caps cannot hold ``total``.
    """
    if ties not in ("low", "high"):
        raise ValueError(f"ties must be 'low' or 'high', got {ties!r}")
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 1 or weights.size == 0:
        raise ValueError(f"weights must be a non-empty 1-D array, got shape {weights.shape}")
    if np.any(weights < 0) or not np.all(np.isfinite(weights)):
        raise ValueError("weights must be finite and non-negative")
    total = int(total)
    if total < 0:
        raise ValueError(f"total must be >= 0, got {total}")
    k = np.arange(weights.shape[0])
    caps = np.full(weights.shape[0], np.iinfo(np.int64).max) if caps is None else np.asarray(caps, np.int64)
    alloc = np.zeros(weights.shape[0], dtype=np.int64)
    free = (caps > 0) & (weights > 0)
    remaining = total
    while remaining > 0 and free.any():
        w = np.where(free, weights, 0.0)
        share = remaining * w / w.sum()
        part = np.floor(share).astype(np.int64)
        rest = remaining - int(part.sum())
        frac = np.where(free, share - part, -1.0)
        order = np.lexsort((k if ties == "low" else -k, -frac))
        part[order[:rest]] += 1
        room = caps - alloc
        over = part > room
        part = np.minimum(part, room)
        alloc += part
        remaining -= int(part.sum())
        free &= ~over & (alloc < caps)
    if remaining > 0:
        raise ValueError(f"cannot place {total} items under the caps {caps.tolist()}")
    return alloc
