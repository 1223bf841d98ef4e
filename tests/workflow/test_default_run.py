"""The default run (``snakemake --cores 2`` with ``config/config.yaml``) shows each paper's
headline at small scale. Every check reads the run's own tables or aggregates and compares
means over the repetitions, the numbers the figures and tables show a user:

* PULSNAR paper, Figure 3 (SNAR): PULSNAR's estimate of alpha is closer to the truth than
  PULSCAR's (``quick_prior_snar``);
* PULSNAR paper, Figure 3 (SCAR): PULSCAR is close to the truth (``quick_prior_scar``);
* PU Extra Trees paper: PU ET above the naive classifier (``quick_uci``);
* PU Hellinger trees paper, Tables 3-4: PU-SHRF above HDT on imbalanced PU data
  (``quick_hellinger``, tuned F1 and AUC-PR);
* Ada-PU paper, Figure 2: test accuracy rises with the boosting rounds (``quick_ada_pu``).

The config's descriptions say which sizes make each hold; a change of code or config that
breaks one fails here.
"""

import pandas as pd
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.workflow]


def _table(run, name):
    return pd.read_csv(run / "results" / "tables" / name)


def _means(run, experiment, metric):
    """Mean of ``metric`` over the repetitions per (dataset, setting, method)."""
    agg = pd.read_parquet(run / "results" / "aggregate" / f"{experiment}.parquet")
    return agg.groupby(["dataset", "setting", "method"])[metric].mean().unstack("method")


def test_pulsnar_is_closer_to_alpha_than_pulscar_on_snar_data(default_run):
    est = _table(default_run, "quick_prior_snar.prior_estimates.csv")
    err = (est["mean"] - est["x"]).abs()
    by = est.assign(err=err).pivot_table(index="x", columns="method", values="err")
    assert list(by.index) == [0.3, 0.5]
    for alpha, row in by.iterrows():
        assert row["pulsnar_hb"] < row["pulscar_hb"], (alpha, est.to_string())
    # PULSCAR's point under SNAR: it underestimates
    pulscar = est[est["method"] == "pulscar_hb"]
    assert (pulscar["mean"] < pulscar["x"]).all(), est.to_string()


def test_pulscar_is_close_to_alpha_on_scar_data(default_run):
    """Within 0.05 of the true alpha on the mean of 3 repetitions: the PULSNAR paper's
    PULSCAR estimates on its SCAR data lie within about 0.02 of alpha; 0.05 leaves room
    for the smaller data (a quarter of the paper's rows) and 3 instead of 40 runs."""
    est = _table(default_run, "quick_prior_scar.prior_estimates.csv")
    pulscar = est[est["method"] == "pulscar"]
    assert len(pulscar) == 2
    assert ((pulscar["mean"] - pulscar["x"]).abs() <= 0.05).all(), est.to_string()


@pytest.mark.parametrize("metric", ["accuracy", "f1"])
def test_pu_extra_trees_above_the_naive_classifier(default_run, metric):
    m = _means(default_run, "quick_uci", metric)
    assert len(m) == 6
    assert (m["pu_et"] > m["naive_lr"]).all(), m.to_string()


@pytest.mark.parametrize("metric", ["f1_tuned", "auc_pr"])
def test_pu_shrf_above_hdt_on_imbalanced_data(default_run, metric):
    m = _means(default_run, "quick_hellinger", metric)
    assert (m["pu_shrf"] > m["hdt"]).all(), m.to_string()


def test_ada_pu_accuracy_rises_with_the_rounds(default_run):
    """Ada-PU's mean test accuracy over the last 10 of 100 rounds lies above that after the
    first round by more than 0.01 (measured rises: 0.844 -> 0.910 with the config's seed,
    0.837 -> 0.919 with seed 7, 0.885 -> 0.906 with seed 3; one stump is a weak
    classifier). The PN AdaBoost baseline is not checked: with every training positive and
    its share of negatives it starts near its final accuracy, and with seed 7 it ends
    where it started."""
    curves = _table(default_run, "quick_ada_pu.curves_accuracy.csv")
    c = curves[curves["method"] == "ada_pu"].sort_values("round")
    assert list(c["round"]) == list(range(1, 101))
    first, last = c["mean"].iloc[0], c["mean"].iloc[-10:].mean()
    assert last > first + 0.01, (first, last)
