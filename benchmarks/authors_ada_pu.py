"""Run the Ada-PU authors' code (Zhao et al., ``Yawen-Zhao-820/Ada-PU``, commit
``c602247b55cd4e2aa61d9f1c37264eaf5259ab49``) on prepared data sets and write one JSON line per
data set: ``{"seconds", "predict_seconds", "rounds", "accuracy"}`` (wall time of
``AdaBoost_PU.fit`` and of ``predict`` on the test rows, the number of stumps kept -- their
fit stops early when its weight total reaches zero -- and test accuracy by their
``utils.accuracy``). Used by ``bench_ada_pu.py --authors-path`` to compare their code beside
ours on the same inputs; it runs in the authors' interpreter, without pu_lib.

Setup (outside this repository; their code is not vendored)::

    git clone https://github.com/Yawen-Zhao-820/Ada-PU /tmp/Ada-PU
    git -C /tmp/Ada-PU checkout c602247b55cd4e2aa61d9f1c37264eaf5259ab49
    python3 -m venv /tmp/adapu_venv
    /tmp/adapu_venv/bin/pip install cython numpy scikit-learn pandas joblib tqdm colorama setuptools
    cd /tmp/Ada-PU && /tmp/adapu_venv/bin/python setup.py build_ext --inplace   # src/decisionstump*.so

Usage: ``/tmp/adapu_venv/bin/python benchmarks/authors_ada_pu.py IN.npz OUT.jsonl --src
/tmp/Ada-PU``. ``IN.npz``: ``n_tasks``, ``beta``, ``n_estimators``, ``repeat`` and per task
``i``: ``Xp_i`` (labeled positives), ``Xu_i`` (the unlabeled set; float32), ``prior_i`` and
optionally ``Xtp_i`` / ``Xtn_i`` (test positives / negatives). Each task is fitted ``repeat``
times; ``seconds`` is the fastest.

Their code as it is, with two changes that do not touch the fit: ``tqdm`` progress bars are
off (``TQDM_DISABLE``), and the on-disk ``joblib.Memory`` cache of their feature statistics
(``/tmp/joblib_cache`` in ``adapu.py``) goes to a temporary directory removed afterwards (the
first fit on a data set computes and stores them, later fits load them). Their stump draws
each threshold after ``np.random.seed(<current microsecond>)``, so their fits are not
reproducible from a seed; only the data split is.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import warnings

import numpy as np


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data")
    ap.add_argument("out")
    ap.add_argument("--src", required=True, help="the authors' checkout (holding src/adapu.py)")
    args = ap.parse_args(argv)

    os.environ["TQDM_DISABLE"] = "1"
    cache = tempfile.mkdtemp(prefix="adapu_joblib_")
    import joblib

    _memory = joblib.Memory
    joblib.Memory = lambda location=None, **kw: _memory(cache, **kw)  # their module-level cache dir
    src = os.path.join(os.path.abspath(args.src), "src")
    sys.path.insert(0, src)
    try:
        from adapu import AdaBoost_PU
        from utils import accuracy

        d = np.load(args.data)
        beta, T, repeat = float(d["beta"]), int(d["n_estimators"]), max(1, int(d["repeat"]))
        with open(args.out, "w") as fh:
            for i in range(int(d["n_tasks"])):
                Xp, Xu, prior = d[f"Xp_{i}"], d[f"Xu_{i}"], float(d[f"prior_{i}"])
                best = np.inf
                for _ in range(repeat):
                    model = AdaBoost_PU(T, prior, 1, beta)  # random thresholds, as their train.py
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        t0 = time.perf_counter()
                        model.fit(Xp, Xu)
                        best = min(best, time.perf_counter() - t0)
                row = {"seconds": best, "rounds": len(model.estimators)}
                if f"Xtp_{i}" in d:
                    Xtp, Xtn = d[f"Xtp_{i}"], d[f"Xtn_{i}"]
                    t0 = time.perf_counter()
                    pp, pn = model.predict(Xtp), model.predict(Xtn)
                    row["predict_seconds"] = time.perf_counter() - t0
                    row["accuracy"] = float(accuracy(pp, pn))
                fh.write(json.dumps(row) + "\n")
    finally:
        shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
