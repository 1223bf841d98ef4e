"""Replay: the PU Hellinger paper's uPU AUC-PR, ours beside the first author's code on our splits.

The paper's uPU is the first author's ``CSBoost(obj='puwce')`` (CarlosOrtegaV/PU_Hellinger_Trees,
commit 2e44245, ``ecsmodels/methodologies/cs_boost.py`` lines 58-112: the uPU logistic-loss
gradient and Hessian, ``xgb.train`` with 100 rounds, exact trees, no L1 / L2, start margin
0.5), scored for AUC-PR as ``average_precision_score(y, expit(booster.inplace_predict(X)))``
(``expsetup.py`` lines 611 and 617). That objective is written out below (their gradient,
Hessian and settings) and trained on the same training rows as each of our repetitions;
each repetition prints our recorded AUC-PR (on ``decision_function``, the untied float64
margin), our booster's margin scored their way (float32 ``expit``), their replay scored
their way, and their replay on its raw margin.

Needs the workflow's results of the ``pu_hellinger`` experiment for the cell (label file and
fits: ``snakemake pu_hellinger_tables_a3_a5_a7 --configfile config/papers/pu_hellinger.yaml``).
Usage::

    python benchmarks/replay_hellinger_upu_aucpr.py DATASET_ID SETTING REPS [OUT.csv]
    # e.g. THY flip-50 $(seq -s, 0 19)
"""
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import xgboost as xgb
import yaml
from scipy.special import expit
from sklearn.metrics import average_precision_score

from pu_lib import metrics
from pu_lib.workflow.experiments import runner
from pu_lib.workflow.experiments.config import Cell, Grid, validate_config
from pu_lib.workflow.experiments.methods import make_method

REPO = Path(__file__).resolve().parents[1]


def deep_merge(a, b):
    for k, v in b.items():
        if isinstance(v, dict) and isinstance(a.get(k), dict): deep_merge(a[k], v)
        else: a[k] = v
    return a
cfg = deep_merge(yaml.safe_load(open(REPO / 'config/config.yaml')),
                 yaml.safe_load(open(REPO / 'config/papers/pu_hellinger.yaml')))
cfg = validate_config(cfg, str(REPO / 'workflow/schemas/config.schema.yaml'))
os.chdir(REPO)
G = Grid(cfg)

def authors_puwce(X, s, prior_y, prob_lab, seed):
    c_inv = prior_y / prob_lab
    eps = 1e-9
    n = len(s)
    f = np.ones(n); A = np.ones(n)   # cost matrix: FP=FN=1
    def obj(raw, d):
        y = d.get_label()
        sc = expit(raw) + eps
        grad = -y*c_inv*A*(1-sc) + y*f*(1-c_inv)*sc + (1-y)*f*sc
        hess = (y*c_inv*A + y*f*(1-c_inv) + (1-y)*f)*sc*(1-sc)
        return grad, hess
    params = {'random_state': seed, 'tree_method': 'exact', 'verbosity': 0, 'reg_alpha': 0,
              'reg_lambda': 0, 'disable_default_eval_metric': True, 'base_score': 0.5, 'nthread': 1}
    return xgb.train(params=params, dtrain=xgb.DMatrix(X, label=s), obj=obj, num_boost_round=100)

ds, setting = sys.argv[1], sys.argv[2]
reps = [int(r) for r in sys.argv[3].split(',')]
spec = G.fit_spec(Cell('pu_hellinger', ds, setting, 'uPU'))
fits = pd.read_parquet(f'results/fits/pu_hellinger/{ds}/{setting}/uPU.parquet')
labels = pd.read_parquet(f'results/labels/pu_hellinger/{ds}/{setting}.parquet')
entry = spec['dataset']
dpath = f"results/data/{entry['name']}.parquet"
spec['repetitions'] = int(labels.rep.max()) + 1
tasks = runner.build_tasks(spec, dpath, labels)
assert all(tasks[r]['seed'] == fits.loc[fits.rep == r, 'seed'].iloc[0] for r in range(len(tasks)))
out = []
for rep in reps:
    t = tasks[rep]; lab = t['labels']
    X, y_all, _ = runner.load_cell_dataset(entry, dpath, rep)
    rows, split, y, s = lab['row'], lab['split'], lab['y'], lab['s']
    X = runner.scale_features(X, rows[split != 'test'], t['method_spec'].get('scale'))
    Xr = X[rows]
    tr, te = split != 'test', split == 'test'
    ms, prior_given = runner.resolve_method_spec(t['method_spec'], y[tr], None)
    est = make_method(ms, random_state=t['seed'], n_jobs=1)
    est.fit(Xr[tr], s[tr])
    m = est.decision_function(Xr[te])
    ap_ours = metrics.auc_pr(y[te], m)
    rec = fits.loc[fits.rep == rep, 'auc_pr'].iloc[0]
    m32 = est.booster_.inplace_predict(Xr[te], predict_type='margin')  # float32
    ap_ours_f32expit = average_precision_score(y[te], expit(m32))
    # authors' replay, same training rows, prior/labelled fraction of training rows
    bst = authors_puwce(Xr[tr], s[tr].astype(float), y[tr].mean(), s[tr].mean(), 0)
    raw = bst.inplace_predict(Xr[te])
    p = expit(raw)
    ap_auth = average_precision_score(y[te], p)
    ap_auth_raw = average_precision_score(y[te], raw.astype(np.float64))
    ntie = int((p == p.max()).sum()); npos_tie = int(y[te][p == p.max()].sum())
    out.append(dict(ds=ds, setting=setting, rep=rep, recorded=rec, ours_margin=ap_ours,
                    ours_f32_expit=ap_ours_f32expit, auth_expit=ap_auth, auth_rawmargin=ap_auth_raw,
                    auth_max_margin=float(raw.max()), ours_max_margin=float(m.max()),
                    auth_top_ties=ntie, auth_top_ties_pos=npos_tie, n_test=int(te.sum()), n_pos_test=int(y[te].sum()),
                    dtype=str(raw.dtype)))
    print(out[-1], flush=True)
df = pd.DataFrame(out)
print(df[["ours_margin", "ours_f32_expit", "auth_expit", "auth_rawmargin"]].mean().mul(100).round(2).to_string())
if len(sys.argv) > 4:
    df.to_csv(sys.argv[4], index=False)
