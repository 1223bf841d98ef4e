"""KM's compiled kernel (numba): the primal active-set solver of the simplex-constrained
quadratic program ``min_v (v - u)^T K (v - u)`` with an updated Cholesky factor of the
support's Gram block.

The method and its estimator are described in :mod:`pu_lib.prior.km`
(:func:`pu_lib.prior.km._simplex_qp_primal` calls :func:`primal_kernel`); this module
holds only the ``@njit`` functions. Compiled functions are cached on disk
(``cache=True``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def chol_append(L, s, k, kjj, rel_tol):
    """Extend the lower Cholesky factor ``L[:s, :s]`` of ``K_SS`` by one point with
    kernel column ``k`` (on ``S``) and diagonal ``kjj``: row ``s`` becomes
    ``[L^{-1} k, sqrt(kjj - |L^{-1} k|^2)]``. False (``L`` unchanged but row ``s``) when
    the new pivot is at most ``rel_tol * kjj``."""
    ss = 0.0
    for i in range(s):
        acc = k[i]
        for j in range(i):
            acc -= L[i, j] * L[s, j]
        r = acc / L[i, i]
        L[s, i] = r
        ss += r * r
    d2 = kjj - ss
    if d2 <= rel_tol * kjj:
        return False
    L[s, s] = math.sqrt(d2)
    return True

@njit(cache=True)
def chol_delete(L, s, p):
    """Remove point ``p`` from the lower Cholesky factor ``L[:s, :s]``: rows and columns
    after ``p`` move up and left, and the trailing block absorbs the removed column by a
    rank-one Cholesky update (``T T^T + x x^T``, Givens-like, ``O(s^2)``)."""
    m = s - p - 1
    x = np.empty(m)
    for i in range(m):
        x[i] = L[p + 1 + i, p]
    for i in range(p, s - 1):
        for j in range(i + 1):
            if j < p:
                L[i, j] = L[i + 1, j]
            else:
                L[i, j] = L[i + 1, j + 1]
    for j in range(s):
        L[s - 1, j] = 0.0
    for k in range(m):
        a = p + k
        r = math.sqrt(L[a, a] * L[a, a] + x[k] * x[k])
        c = r / L[a, a]
        sn = x[k] / L[a, a]
        L[a, a] = r
        for i in range(k + 1, m):
            b = p + i
            L[b, a] = (L[b, a] + sn * x[i]) / c
            x[i] = c * x[i] - sn * L[b, a]


@njit(cache=True)
def forward_from(L, s, f, y, start):
    """Forward substitution ``y[:s] = L[:s, :s]^{-1} f[:s]`` for rows ``start`` to ``s - 1``
    only, in place (rows before ``start`` are kept: they do not change when points after
    them are removed or a point is appended)."""
    for i in range(start, s):
        acc = f[i]
        for j in range(i):
            acc -= L[i, j] * y[j]
        y[i] = acc / L[i, i]


@njit(cache=True)
def back_solve(L, s, y):
    """``L[:s, :s]^{-T} y`` (back substitution, row by row of ``L``)."""
    x = y[:s].copy()
    for i in range(s - 1, -1, -1):
        x[i] /= L[i, i]
        xi = x[i]
        for j in range(i):
            x[j] -= L[i, j] * xi
    return x


@njit(cache=True)
def primal_append(K, Ku, L, S, f, ones, s, j, ya, yb, rel_tol):
    """Append point ``j`` to the support ``S[:s]`` (and ``Ku_j`` to ``f = Ku_S``): extend
    the factor (refused, False, when ``j`` is numerically in the span of ``S``) and the
    forward-substituted right-hand sides ``ya = L^{-1} f``, ``yb = L^{-1} 1_S`` by their
    new row."""
    k = np.empty(s)
    for i in range(s):
        k[i] = K[j, S[i]]  # K is symmetric: row j, contiguous
    if not chol_append(L, s, k, K[j, j], rel_tol):
        return False
    S[s] = j
    f[s] = Ku[j]
    forward_from(L, s + 1, f, ya, s)  # the new row only
    forward_from(L, s + 1, ones, yb, s)
    return True


@njit(cache=True)
def primal_kernel(K, u, Ku, v0, max_iter, rel_tol, scale):
    """The loop of :func:`_simplex_qp_primal`, compiled (``K`` symmetric: its rows serve
    as columns). Returns ``(ok, d2, v)``.

    With ``f = Ku_S`` and ``e = 1_S`` in the order of ``S``: ``ya = L^{-1} f``,
    ``yb = L^{-1} e``, so that ``a = K_SS^{-1} f = L^{-T} ya``, ``sum(a) = yb . ya`` and
    ``sum(b) = yb . yb``: one back substitution a step; ``ya``, ``yb`` gain one entry per
    point added (``O(|S|)``) and are redone from the first removed position on."""
    n = K.shape[0]
    L = np.zeros((n, n))
    ya, yb = np.zeros(n), np.zeros(n)
    S = np.empty(n, dtype=np.int64)
    f = np.empty(n)  # Ku_S, in the order of S
    ones = np.ones(n)
    s = 0
    for j in range(n):  # the start's support, less points in the span of the others
        if v0[j] > 0.0 and primal_append(K, Ku, L, S, f, ones, s, j, ya, yb, rel_tol):
            s += 1
    v = np.zeros(n)
    if s == 0:
        return False, 0.0, v
    tot = 0.0
    for i in range(s):
        tot += v0[S[i]]
    for i in range(s):
        v[S[i]] = v0[S[i]] / tot
    vs = np.empty(n)
    Kv = np.empty(n)
    for _ in range(max_iter):
        yab, ybb = 0.0, 0.0
        for i in range(s):
            yab += ya[i] * yb[i]
            ybb += yb[i] * yb[i]
        h = (yab - 1.0) / ybb  # half the multiplier of sum v = 1
        p = back_solve(L, s, ya[:s] - h * yb[:s])  # K_SS^{-1} (f - h e)
        if p.min() <= 0.0:  # step back to the boundary, drop the points that reach 0
            t, blocking = np.inf, -1
            for i in range(s):
                vs[i] = v[S[i]]
                if p[i] <= 0.0:
                    r = vs[i] / (vs[i] - p[i])
                    if r < t:
                        t, blocking = r, i
            vmax = 0.0
            for i in range(s):
                vs[i] = vs[i] + t * (p[i] - vs[i])
            vs[blocking] = 0.0  # the blocking point leaves the support (exactly, not to rounding)
            for i in range(s):
                vmax = max(vmax, vs[i])
            first = -1
            for q in range(s - 1, -1, -1):  # drop from the back: positions before q keep their place
                if vs[q] <= 1e-15 * vmax:
                    chol_delete(L, s, q)
                    for i in range(q, s - 1):
                        S[i] = S[i + 1]
                        f[i] = f[i + 1]
                        vs[i] = vs[i + 1]
                    s -= 1
                    first = q
            forward_from(L, s, f, ya, first)
            forward_from(L, s, ones, yb, first)
            tot = 0.0
            for i in range(s):
                tot += vs[i]
            v[:] = 0.0
            for i in range(s):
                v[S[i]] = vs[i] / tot
            continue
        v[:] = 0.0
        Kv[:] = 0.0
        for i in range(s):  # K v = sum over the support of p_i K[S_i, :] (rows: contiguous)
            v[S[i]] = p[i]
            pi = p[i]
            row = S[i]
            for r in range(n):
                Kv[r] += pi * K[row, r]
        zmax_on = 0.0
        for i in range(s):
            zmax_on = max(zmax_on, abs(2.0 * (Kv[S[i]] - Ku[S[i]] + h)))
        if zmax_on > 1e-9 * scale:  # multipliers of v >= 0 are 0 on S up to rounding, or the solve is inaccurate
            return False, 0.0, v
        zmin, j = np.inf, -1
        for r in range(n):  # off the support (v = 0 exactly; p > 0 on it) the most negative multiplier
            if v[r] == 0.0:
                z = 2.0 * (Kv[r] - Ku[r] + h)
                if z < zmin:
                    zmin, j = z, r
        if j < 0 or zmin >= -1e-12 * scale:
            d2 = 0.0
            for r in range(n):
                d2 += (v[r] - u[r]) * (Kv[r] - Ku[r])
            return True, max(d2, 0.0), v
        if not primal_append(K, Ku, L, S, f, ones, s, j, ya, yb, rel_tol):
            return False, 0.0, v
        s += 1
    return False, 0.0, v
