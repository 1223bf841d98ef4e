"""Scoring one fitted PU classifier on one repetition (a result row's metric columns).

The estimator is fitted on the training rows ``(X_tr, s_tr)`` plus exactly the fit
inputs it requests (:func:`pu_lib.workflow.experiments.runner.fit_kwargs`), then scored against
the hidden classes on the evaluation rows: the test part (``evaluate_on: test``) or the
unlabeled training rows (``evaluate_on: unlabeled``, transductive).

Columns besides :data:`pu_lib.metrics.METRICS`:

* ``prior_true``: the class prior of the training sample (positive fraction of the
  training rows); ``prior_hat``: the estimator's ``prior_`` when it has one (an
  estimated or given prior of the training sample), else NaN; ``prior_given``: the prior
  passed in the config (a number, or the true prior for ``prior: true``), else NaN;
* ``c_true`` / ``c_hat``: the label frequency and the estimator's ``c_`` (Elkan-Noto);
* ``pn_n_positives`` / ``pn_n_negatives`` (only for estimators with a PN training
  sample, ``n_positives_`` and ``n_negatives_`` fitted: the Ada-PU paper's PN baselines):
  the positives and negatives it was trained on;
* ``pu_risk_*``: how the training zero-one PU risk (PU ET Appendix K) was computed;
* ``propensity_mse``: for a method with a propensity model (``propensity(X)``: SAR-EM,
  the label-frequency-weighted SCAR and naive classifiers), the mean squared error of its
  propensity scores against the label file's true ones on the positives among the
  evaluation rows (Bekker thesis Table 5.3, as the authors' experiments evaluate it);
  NaN for other methods;
* ``fit_on``: ``"y"`` when the estimator requested the true classes (oracles), else ``"s"``;
* ``fit_seconds`` / ``predict_seconds``;
* ``staged_<metric>`` (experiments with ``staged_metrics``, methods with
  ``staged_predict``): the metric on the evaluation rows after each boosting round, a list
  (:mod:`pu_lib.workflow.experiments.curves`).

Threshold tuning with refit (``split.refit: true``, the PU Hellinger trees protocol as
the authors' ``expsetup.py`` runs it): :func:`refit_classifier_row` fits a first model on
the training part, takes the F1-maximising threshold on the validation part against the
true classes, then fits a clone on training + validation rows (the validation rows' ``s``
labels included) and scores that refitted model on the evaluation rows: ``f1_tuned`` is
its test F1 at the tuned threshold, every other metric is the refitted model's. Extra
columns: ``f1_threshold`` (the tuned threshold, on the scale of
:func:`ranking_score`; with ``split.threshold_rule: grid``, the PU Hellinger authors' grid
rule, on the probabilities), ``n_val`` and ``tune_fit_seconds`` (the first fit).
"""

from __future__ import annotations

import time

import numpy as np

from pu_lib._validation import SCENARIOS, SINGLE_TRAINING_SET

__all__ = [
    "classifier_row",
    "pu_only_row",
    "propensity_mse",
    "pu_estimates",
    "pu_risk_estimator",
    "pu_risk_scenario",
    "ranking_score",
    "refit_classifier_row",
    "validation_scores",
]


def pu_risk_scenario(est) -> str:
    """Scenario of the training PU risk: the estimator's ``scenario`` parameter when it
    has one (the PU trees: it says how they read ``s``), else single-training-set -- the
    training rows as the runner passes them are one sample of p(x) in which the labeled
    rows are part of U, for every label mechanism (case-control included: P is drawn from
    the training positives and U is the whole training part)."""
    own = est.get_params(deep=False).get("scenario")
    return own if own in SCENARIOS else SINGLE_TRAINING_SET


def pu_risk_estimator(est) -> str:
    """Risk estimator of the training PU risk: the estimator's ``risk`` parameter when it
    is ``"upu"`` or ``"nnpu"``, else ``"nnpu"``."""
    risk = est.get_params(deep=False).get("risk")
    return risk if risk in ("upu", "nnpu") else "nnpu"


def ranking_score(est, X, proba):
    """Continuous ranking score: ``decision_function`` when the estimator has one (it is
    monotone in the probability but not clipped), else the probability."""
    if hasattr(est, "decision_function"):
        return np.asarray(est.decision_function(X), dtype=np.float64).ravel()
    return proba


def pu_estimates(s, pred, proba, score, prior, scenario: str) -> dict:
    """The PU estimates of :data:`pu_lib.metrics.PU_ESTIMATE_METRICS` for a model's
    predictions on rows with PU labels ``s``: ``pred`` (0/1), ``proba`` (``P(y=1|x)``) and
    ``score`` (:func:`ranking_score`). The AUC between labeled and unlabeled rows, and, with
    a class prior, its correction to the PN AUC, the PU estimates of F1 and accuracy and the
    nnPU risk with the sigmoid loss on ``proba`` (:mod:`pu_lib.model_selection`, where each
    states its assumptions). NaN where the rows hold no labeled or no unlabeled example, or
    the criterion needs a prior and there is none."""
    from pu_lib import model_selection as ms
    from pu_lib.metrics import PU_ESTIMATE_METRICS

    out = dict.fromkeys(PU_ESTIMATE_METRICS, float("nan"))
    if not s.any() or s.all():
        return out
    out["pu_auc"] = float(ms.pu_roc_auc_score(s, score))
    if prior is not None and 0.0 < prior < 1.0:
        out.update({
            "pu_auc_corrected": float(ms.pu_roc_auc_corrected(s, score, prior, scenario)),
            "pu_f1": float(ms.pu_f1_score(s, pred, prior, scenario)),
            "pu_accuracy": float(ms.pu_accuracy_score(s, pred, prior, scenario)),
            "nnpu_risk": float(ms.pu_risk_sigmoid(s, np.clip(proba, 0.0, 1.0), prior, "nnpu", "proba", scenario)),
        })
    return out


def validation_scores(est, cell, fit_kwargs: dict) -> dict:
    """Fit ``est`` on the training rows of ``cell`` and score its validation part:
    ``{"y", "proba", "score", "fit_seconds"}`` (true classes, ``P(y=1)`` and
    :func:`ranking_score` of the validation rows; the seconds of the fit)."""
    t0 = time.perf_counter()
    est.fit(cell.X_tr, cell.s_tr, **fit_kwargs)
    fit_seconds = time.perf_counter() - t0
    X_va, y_va, _ = cell.part("val")
    if y_va.shape[0] == 0:
        raise ValueError("threshold tuning needs a validation part (split.val_size > 0)")
    proba = est.predict_proba(X_va)[:, 1]
    return {"y": y_va, "proba": proba, "score": ranking_score(est, X_va, proba), "fit_seconds": fit_seconds}


def refit_classifier_row(est_tune, cell_tune, kwargs_tune: dict, est, cell, fit_kwargs: dict, task: dict,
                         prior_given) -> dict:
    """The result row of the tune-then-refit protocol (``split.refit: true``).

    ``est_tune`` is fitted on the training rows of ``cell_tune`` and its F1-maximising
    threshold is chosen on the validation rows of ``cell_tune`` against the true classes
    (:func:`pu_lib.metrics.best_f1_threshold`); ``est`` (a clone, unfitted) is then fitted
    on the training rows of ``cell`` -- training and validation parts together -- and
    scored by :func:`classifier_row`, with ``f1_tuned`` = its test F1 at that threshold.
    """
    from pu_lib import metrics

    val = validation_scores(est_tune, cell_tune, kwargs_tune)
    row = classifier_row(est, cell, fit_kwargs, task, prior_given, val=val)
    if task.get("threshold_rule", "midpoint") == "grid":  # the authors' rule, on the probabilities
        row["f1_threshold"] = metrics.grid_f1_threshold(val["y"], val["proba"])[0]
    else:
        row["f1_threshold"] = metrics.best_f1_threshold(val["y"], val["score"], midpoint=True)[0]
    row["n_val"] = int(val["y"].shape[0])
    row["tune_fit_seconds"] = val["fit_seconds"]
    return row


def propensity_mse(est, X_ev, y_ev, e_ev) -> float:
    """MSE of ``est.propensity`` against the true propensities ``e_ev`` on the positives
    of the evaluation rows; NaN without a propensity model, positives or finite truths."""
    if not hasattr(est, "propensity") or e_ev is None:
        return float("nan")
    pos = (np.asarray(y_ev) == 1) & np.isfinite(e_ev)
    if not pos.any():
        return float("nan")
    e_hat = np.asarray(est.propensity(X_ev[pos]), dtype=np.float64)
    return float(np.mean((e_hat - e_ev[pos]) ** 2))


def classifier_row(est, cell, fit_kwargs: dict, task: dict, prior_given, val: dict | None = None) -> dict:
    """Fit ``est`` on the training rows of ``cell`` (:class:`~pu_lib.workflow.experiments.runner.RepetitionData`)
    and return the metric columns of its result row.

    ``val``: validation classes and scores of another model (:func:`validation_scores`;
    the refit protocol) to tune the ``f1_tuned`` threshold on, instead of this model's
    scores on the validation part of ``cell``; Lee & Liu's criterion is then in-sample.
    """
    from pu_lib import metrics

    if not getattr(cell, "y_known", True):
        return pu_only_row(est, cell, fit_kwargs, task, prior_given)
    X_tr, s_tr, y_tr = cell.X_tr, cell.s_tr, cell.y_tr
    t0 = time.perf_counter()
    est.fit(X_tr, s_tr, **fit_kwargs)
    fit_seconds = time.perf_counter() - t0

    if task["evaluate_on"] == "test":
        X_ev, y_ev, _ = cell.part("test")
        e_ev = None if cell.propensity is None else cell.propensity[cell.split == "test"]
    else:  # transductive: the unlabeled training rows
        X_ev, y_ev = X_tr[s_tr == 0], y_tr[s_tr == 0]
        e_ev = None if cell.propensity_tr is None else cell.propensity_tr[s_tr == 0]
    t0 = time.perf_counter()
    proba = est.predict_proba(X_ev)[:, 1]
    pred = est.predict(X_ev)
    score = ranking_score(est, X_ev, proba)
    predict_seconds = time.perf_counter() - t0

    y_val = proba_val = score_val = None
    if val is not None:  # tuned on another model's validation scores; val rows are in training
        has_val = False
        y_val, proba_val, score_val = val["y"], val["proba"], val["score"]
    else:
        X_va, y_va, s_va = cell.part("val")
        has_val = y_va.shape[0] > 0
        if has_val:
            y_val = y_va
            proba_val = est.predict_proba(X_va)[:, 1]
            score_val = ranking_score(est, X_va, proba_val)
    # In-sample predictions: the training PU risk (always computed) and Lee & Liu's
    # criterion (on the validation part if there is one, else in-sample; it needs PU labels).
    pred_tr = est.predict(X_tr)
    if has_val:
        s_ll, pred_ll, proba_ll, score_ll = s_va, est.predict(X_va), proba_val, score_val
    else:
        s_ll, pred_ll = s_tr, pred_tr
        proba_ll = est.predict_proba(X_tr)[:, 1]
        score_ll = ranking_score(est, X_tr, proba_ll)
    lee_liu = metrics.lee_liu(s_ll, pred_ll)

    prior_true = float(y_tr.mean())
    prior_hat = getattr(est, "prior_", None)  # a public fitted attribute (trees, Elkan-Noto)
    # Training PU risk (zero-one loss, PU ET Appendix K): the prior the method used.
    if prior_hat is not None and np.isfinite(float(prior_hat)):
        risk_prior = float(prior_hat)
    elif prior_given is not None:
        risk_prior = prior_given
    else:
        risk_prior = prior_true
    risk_scenario = pu_risk_scenario(est)
    risk_kind = pu_risk_estimator(est)
    res = metrics.evaluate(
        y_ev, proba, pred, y_val=y_val, proba_val=proba_val, score_test=score, score_val=score_val,
        prior_true=prior_true if prior_hat is not None else None,
        prior_hat=float(prior_hat) if prior_hat is not None else None,
        s_train=s_tr, y_pred_train=pred_tr,
        # a prior estimate outside [0, 1] gives NaN instead of failing the repetition
        prior_train=risk_prior if 0.0 <= risk_prior <= 1.0 else None,
        pu_risk=risk_kind, pu_scenario=risk_scenario,
        threshold_rule=task.get("threshold_rule", "midpoint"),
    )
    res["lee_liu"] = float(lee_liu)
    res.update(pu_estimates(s_ll, pred_ll, proba_ll, score_ll, risk_prior, risk_scenario))
    n_pos = int(y_tr.sum())
    row = {
        "n_eval": int(len(y_ev)),
        "prior_true": prior_true,
        "prior_hat": float(prior_hat) if prior_hat is not None else float("nan"),
        "prior_given": prior_given if prior_given is not None else float("nan"),
        "pu_risk_estimator": risk_kind,
        "pu_risk_prior": risk_prior,
        "pu_risk_scenario": risk_scenario,
        "fit_on": "y" if "y_true" in fit_kwargs else "s",
        "c_true": float(s_tr.sum() / n_pos) if n_pos else float("nan"),
        "c_hat": float(getattr(est, "c_", float("nan"))),
        "fit_seconds": fit_seconds,
        "predict_seconds": predict_seconds,
        "propensity_mse": propensity_mse(est, X_ev, y_ev, e_ev),
    }
    if hasattr(est, "n_positives_") and hasattr(est, "n_negatives_"):  # a PN sample (pn_boosting)
        row["pn_n_positives"] = int(est.n_positives_)
        row["pn_n_negatives"] = int(est.n_negatives_)
    row.update({k: float(v) for k, v in res.items()})
    if task.get("staged_metrics"):  # per-round curves of boosting methods (lists)
        from pu_lib.workflow.experiments.curves import staged_scores

        row.update(staged_scores(est, X_ev, y_ev, task["staged_metrics"]))
    return row


def pu_only_row(est, cell, fit_kwargs: dict, task: dict, prior_given) -> dict:
    """The metric columns on data that is PU already (a user dataset with an ``s_column``:
    ``cell.y_known`` is False): only what needs no true class. ``lee_liu`` and the PU
    estimates on the test part, the held-out rows the model was not fitted on (the file's
    ``s`` there; the config check refuses such an experiment without a test part, as
    in-sample scores would favour the methods that memorise their training labels);
    ``train_pu_risk_01`` on the training rows with the prior the method used (its
    ``prior_``, else the prior given in the config; NaN without one); the timings. Every
    metric that needs the true classes is NaN, and so are ``prior_true``, ``c_true`` and
    ``propensity_mse``."""
    from pu_lib import metrics

    X_tr, s_tr = cell.X_tr, cell.s_tr
    t0 = time.perf_counter()
    est.fit(X_tr, s_tr, **fit_kwargs)
    fit_seconds = time.perf_counter() - t0
    X_ll, _, s_ll = cell.part("test")
    t0 = time.perf_counter()
    pred_tr = est.predict(X_tr)
    pred_ll = est.predict(X_ll)
    predict_seconds = time.perf_counter() - t0
    lee_liu = metrics.lee_liu(s_ll, pred_ll) if s_ll.any() else float("nan")
    prior_hat = getattr(est, "prior_", None)
    if prior_hat is not None and np.isfinite(float(prior_hat)):
        risk_prior = float(prior_hat)
    else:
        risk_prior = prior_given
    risk_scenario, risk_kind = pu_risk_scenario(est), pu_risk_estimator(est)
    risk = float("nan")
    if risk_prior is not None and 0.0 <= risk_prior <= 1.0:
        risk = metrics.pu_risk_01(s_tr, pred_tr, risk_prior, estimator=risk_kind, scenario=risk_scenario)
    row = {
        "n_eval": int(len(s_ll)),
        "prior_true": float("nan"),
        "prior_hat": float(prior_hat) if prior_hat is not None else float("nan"),
        "prior_given": prior_given if prior_given is not None else float("nan"),
        "pu_risk_estimator": risk_kind,
        "pu_risk_prior": risk_prior if risk_prior is not None else float("nan"),
        "pu_risk_scenario": risk_scenario,
        "fit_on": "s",
        "c_true": float("nan"),
        "c_hat": float(getattr(est, "c_", float("nan"))),
        "fit_seconds": fit_seconds,
        "predict_seconds": predict_seconds,
        "propensity_mse": float("nan"),
    }
    row.update({k: float("nan") for k in metrics.EVALUATE_METRICS})
    row.update({"lee_liu": float(lee_liu), "train_pu_risk_01": float(risk)})
    proba_ll = est.predict_proba(X_ll)[:, 1]
    score_ll = ranking_score(est, X_ll, proba_ll)
    row.update(pu_estimates(s_ll, pred_ll, proba_ll, score_ll, risk_prior, risk_scenario))
    return row
