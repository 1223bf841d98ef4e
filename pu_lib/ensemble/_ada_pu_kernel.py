"""Ada-PU's compiled kernels (numba): the stump scans of one boosting round (random
thresholds or every midpoint per feature), the reweighting of the rows and the vote of
the fitted stumps.

The algorithm and the estimator are described in :mod:`pu_lib.ensemble.ada_pu`; this
module holds only the ``@njit`` functions and the constants they read. Compiled functions
are cached on disk (``cache=True``) and release the GIL (``nogil``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

#: ``eps_nn`` above ``-NN_TOL * Z`` counts as non-negative (float rounding of a zero sum)
NN_TOL = 1e-12
#: partial sums of the compiled scans (fixed, so sums do not depend on the CPU's vector width)
LANES = 8

# --------------------------------------------------------------------------- compiled kernels

@njit(cache=True, nogil=True)
def consider(f, thr, a_lo, b_lo, a_tot, b_tot, Z, best_E, best_thr, best_pol):
    """Check the two stumps of one threshold on feature ``f`` and keep the better
    qualifying one in ``best_*[f]``. ``a_lo`` / ``b_lo``: P+ weight and U- weight minus
    |P-| weight at or below the threshold; ``*_tot``: the same over all rows. Returns
    True when the threshold became the feature's best."""
    b_hi = b_tot - b_lo
    # orientation +1 above: P+ below and U-/P- above are the errors
    e_up = a_lo + b_hi
    # orientation +1 below: P+ above and U-/P- below are the errors
    e_dn = (a_tot - a_lo) + b_lo
    found = False
    if e_up < best_E[f] and e_up < 0.5 * Z and b_hi >= -NN_TOL * Z:
        best_E[f] = e_up
        best_thr[f] = thr
        best_pol[f] = 1
        found = True
    if e_dn < best_E[f] and e_dn < 0.5 * Z and b_lo >= -NN_TOL * Z:
        best_E[f] = e_dn
        best_thr[f] = thr
        best_pol[f] = -1
        found = True
    return found


@njit(cache=True, nogil=True)
def scan_random(Xc, f0, f1, thr, a, b, a_tot, b_tot, Z, best_E, best_thr, best_pol):
    """Best qualifying stump per feature ``f0 <= f < f1`` among the thresholds
    ``thr[f]`` (sorted ascending). ``Xc``: features x rows (float32)."""
    n = Xc.shape[1]
    n_thr = thr.shape[1]
    bin_a = np.empty(n_thr + 1)
    bin_b = np.empty(n_thr + 1)
    mask = np.empty(n)
    lane_a = np.empty(LANES)
    lane_b = np.empty(LANES)
    n_full = n - n % LANES
    for f in range(f0, f1):
        best_E[f] = np.inf
        best_pol[f] = 0
        x = Xc[f]
        if n_thr == 1:
            # the weight at or below the threshold: a 0/1 mask, then LANES fixed partial
            # sums (row i in lane i % LANES) added in a fixed order -- both passes
            # vectorise without reordering floating-point additions, so the sums (and
            # the model) are the same on every CPU
            t = thr[f, 0]
            for i in range(n):
                mask[i] = np.float64(x[i] <= t)
            lane_a[:] = 0.0
            lane_b[:] = 0.0
            for i in range(0, n_full, LANES):
                for j in range(LANES):
                    lane_a[j] += a[i + j] * mask[i + j]
                    lane_b[j] += b[i + j] * mask[i + j]
            for i in range(n_full, n):
                lane_a[0] += a[i] * mask[i]
                lane_b[0] += b[i] * mask[i]
            a_lo = 0.0
            b_lo = 0.0
            for j in range(LANES):
                a_lo += lane_a[j]
                b_lo += lane_b[j]
            consider(f, t, a_lo, b_lo, a_tot, b_tot, Z, best_E, best_thr, best_pol)
            continue
        # bin k holds the rows above exactly k thresholds (x <= thr[f, j] for j >= k)
        bin_a[:] = 0.0
        bin_b[:] = 0.0
        tf = thr[f]
        for i in range(n):
            k = np.searchsorted(tf, x[i])
            bin_a[k] += a[i]
            bin_b[k] += b[i]
        a_lo = 0.0
        b_lo = 0.0
        for j in range(n_thr):
            a_lo += bin_a[j]
            b_lo += bin_b[j]
            consider(f, tf[j], a_lo, b_lo, a_tot, b_tot, Z, best_E, best_thr, best_pol)


@njit(cache=True, nogil=True)
def scan_best(Xs, order, f0, f1, a, b, a_tot, b_tot, Z, best_E, best_thr, best_pol):
    """Best qualifying stump per feature over every midpoint between consecutive distinct
    values. ``Xs``: each feature's values sorted; ``order``: the rows in that order."""
    n = Xs.shape[1]
    for f in range(f0, f1):
        best_E[f] = np.inf
        best_pol[f] = 0
        xs = Xs[f]
        idx = order[f]
        a_lo = 0.0
        b_lo = 0.0
        k_best = -1
        for k in range(n - 1):
            i = idx[k]
            a_lo += a[i]
            b_lo += b[i]
            if xs[k + 1] > xs[k]:
                if consider(f, np.float32(0.0), a_lo, b_lo, a_tot, b_tot, Z, best_E, best_thr, best_pol):
                    k_best = k
        if k_best >= 0:  # the midpoint of the best gap, kept strictly below the upper value
            lo = xs[k_best]
            hi = xs[k_best + 1]
            t = np.float32((np.float64(lo) + np.float64(hi)) / 2.0)
            best_thr[f] = lo if t >= hi else t


@njit(cache=True, nogil=True)
def reweight(x, thr, pol, alpha, a, b):
    """Eq. 12 in place: ``a *= exp(-alpha h)``, ``b *= exp(alpha h)``; returns the new
    total signed weight ``sum a + sum b``."""
    down = math.exp(-alpha)
    up = math.exp(alpha)
    z = 0.0
    for i in range(x.shape[0]):
        if (x[i] > thr) == (pol > 0):  # h = +1
            a[i] *= down
            b[i] *= up
        else:
            a[i] *= up
            b[i] *= down
        z += a[i] + b[i]
    return z


@njit(cache=True, nogil=True)
def vote(X, feature, threshold, polarity, alpha, out):
    """``out[i] = sum_t alpha_t h_t(X[i])`` for the non-empty rounds."""
    n_rounds = feature.shape[0]
    for i in range(X.shape[0]):
        s = 0.0
        for t in range(n_rounds):
            f = feature[t]
            if f < 0:
                continue
            if X[i, f] > threshold[t]:
                s += alpha[t] * polarity[t]
            else:
                s -= alpha[t] * polarity[t]
        out[i] = s


# --------------------------------------------------------------------------- estimator
