"""pu_lib.prior.diagnostic: several estimators side by side, their disagreement, too few
labeled rows, the SCAR check and the prior sweep; ``pu-lib prior --all``."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from conftest import mixture_sample, two_gaussians
from pu_lib.workflow import cli
from pu_lib.prior import BasePriorEstimator
from pu_lib.prior.diagnostic import diagnose_prior, prior_sweep, scar_check


class _Constant(BasePriorEstimator):
    """alpha fixed whatever the data: its half-sample interval is the point itself."""

    def __init__(self, alpha=0.3):
        self.alpha = alpha

    def _estimate(self, X, s):
        return "alpha", self.alpha


def test_the_diagnosis_runs_on_a_small_two_gaussian_sample():
    X, s, y = two_gaussians(n=600, seed=0)
    d = diagnose_prior(X, s, ["tice", "elkan_noto_prior"], n_resamples=5, priors=[0.2, 0.4, 0.6],
                       n_permutations=19, random_state=0)
    t = d.table
    assert list(t["estimator"]) == ["tice", "elkan_noto_prior"]
    share = s.mean()
    for _, r in t.iterrows():  # every estimate is a possible prior, inside its interval's range
        assert share <= r["estimate"] <= 1.0 and r["low"] <= r["high"]
        assert r["c"] == pytest.approx(share / r["prior"])
    assert list(d.sweep["prior"]) == [0.2, 0.4, 0.6]
    # a larger prior never makes PU Extra Trees predict fewer positives here (its weights on
    # the labeled rows grow with the prior); allow one row of noise between refits
    pos = d.sweep["predicted_positive"].to_numpy()
    assert np.all(np.diff(pos) >= -1.0 / len(s))
    text = d.summary()
    assert "tice" in text and "SCAR check" in text and "prior sweep" in text
    json.dumps(d.to_dict())  # JSON-ready


def test_an_estimators_numbers_do_not_depend_on_the_others_in_the_list():
    X, s, _ = two_gaussians(n=400, seed=1)
    kw = {"n_resamples": 4, "sweep": False, "scar": False, "random_state": 3}
    alone = diagnose_prior(X, s, ["elkan_noto_prior"], **kw).table.iloc[0]
    after = diagnose_prior(X, s, ["tice", "elkan_noto_prior"], **kw).table.iloc[1]
    for col in ("estimate", "low", "high"):
        assert after[col] == alone[col]


def test_disjoint_intervals_are_listed_as_a_disagreement():
    X, s = mixture_sample(0.3, 200, 60, seed=0)
    d = diagnose_prior(X, s, [_Constant(0.1), _Constant(0.1), _Constant(0.6)], scenario="case_control",
                       n_resamples=3, sweep=False, scar=False)
    # constant estimators: each interval is its point, so both 0.1 / 0.6 pairs are disjoint
    assert d.disagreements == [("_Constant", "_Constant_3"), ("_Constant_2", "_Constant_3")]
    assert list(d.table["estimate"]) == pytest.approx([0.1, 0.1, 0.6])
    assert "DISAGREE" in d.summary()
    same = diagnose_prior(X, s, [_Constant(0.3), _Constant(0.3)], scenario="case_control", n_resamples=3,
                          sweep=False, scar=False)
    assert same.disagreements == [] and "agree" in same.summary()


def test_too_few_labeled_rows_are_flagged():
    X, _, y = two_gaussians(n=300, seed=0)
    s = np.zeros(300, int)
    s[np.flatnonzero(y == 1)[:3]] = 1
    d = diagnose_prior(X, s, ["tice", "km2"], n_resamples=4, sweep=False, scar=False)
    # TIcE needs one labeled row per fold (5): not run; KM2 needs 2, which the 3 rows give
    # but a half-sample (1 labeled row) does not: run once, without an interval
    assert d.too_few_labeled == {"tice": 5, "km2": 2}
    t = d.table.set_index("estimator")
    assert np.isnan(t.loc["tice", "estimate"]) and "needs 5 labeled rows" in t.loc["tice", "note"]
    assert np.isfinite(t.loc["km2", "estimate"]) and np.isnan(t.loc["km2", "low"])
    assert "TOO FEW LABELED ROWS" in d.summary()


def _sar_labels(X, y, seed):
    """Labels whose propensity rises with the first feature among positives (SAR)."""
    rng = np.random.default_rng(seed)
    e = 1.0 / (1.0 + np.exp(-2.0 * (X[:, 0] - 3.0)))
    return ((y == 1) & (rng.random(len(y)) < e)).astype(int)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.slow  # accuracy over several fits: slow tier (the fast tier keeps the API checks)
def test_the_scar_check_rejects_a_sar_sample_and_not_a_scar_one(seed):
    # two Gaussians 3 sd apart in each of 3 coordinates: the likeliest positives are
    # positives, so SCAR implies the null. 49 permutations: the smallest p-value is 0.02,
    # so a rejection at the usual 0.05 is possible; under the null the permutation p-value
    # is at most 0.05 with probability at most 0.05 (exact test), and with fixed seeds the
    # outcome is deterministic. On the SAR samples (propensity rising from about 0.02 to 1
    # across the positives) the AUC of s from x among the likeliest positives was 0.74-0.80
    # on seeds 0-3, beyond every permutation (p = 0.02); on the SCAR samples p was 0.6-0.9.
    X, s, y = two_gaussians(n=1000, seed=seed)
    scar = scar_check(X, s, n_permutations=49, random_state=seed)
    sar = scar_check(X, _sar_labels(X, y, seed + 100), n_permutations=49, random_state=seed)
    assert scar["p_value"] > 0.05 and not scar["rejected"]
    assert sar["p_value"] <= 0.05 and sar["rejected"] and sar["auc"] > 0.6


def test_the_scar_check_says_where_it_does_not_apply():
    X, _, y = two_gaussians(n=300, seed=0)
    s = np.zeros(300, int)
    s[np.flatnonzero(y == 1)[:8]] = 1
    r = scar_check(X, s, n_permutations=9)
    assert r["p_value"] is None and r["rejected"] is None and "fewer than" in r["note"]


def test_the_sweep_skips_impossible_priors():
    X, s, _ = two_gaussians(n=300, seed=0)
    sw = prior_sweep(X, s, [s.mean() / 2, 0.5], random_state=0)
    assert list(sw["prior"]) == [0.5]


@pytest.mark.slow  # accuracy over several fits: slow tier (the fast tier keeps the API checks)
def test_prior_all_prints_the_table(tmp_path, capsys):
    X, s, _ = two_gaussians(n=400, seed=2)
    path = tmp_path / "pu.csv"
    pd.DataFrame(X, columns=["a", "b", "c"]).assign(s=s).to_csv(path, index=False)
    args = ["-q", "prior", str(path), "--s", "s", "--all", "--methods", "tice,elkan_noto_prior", "--bootstrap", "4",
            "--priors", "0.3,0.5"]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("estimator"))
    assert lines[header].split()[:4] == ["estimator", "estimate", "low", "high"]
    assert lines[header + 2].startswith("tice") and lines[header + 3].startswith("elkan_noto_prior")
    assert "SCAR check" in out and "prior sweep" in out
    assert cli.main([*args, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert [r["estimator"] for r in got["estimates"]] == ["tice", "elkan_noto_prior"]
    assert got["n_labeled"] == int(s.sum()) and [r["prior"] for r in got["sweep"]] == [0.3, 0.5]
