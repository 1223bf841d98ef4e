"""``pu-lib``: the command line over the package (docs/cli.md).

Subcommands, each a thin layer over the library's own functions:

* ``prior FILE --s COLUMN``: a class-prior estimator of :mod:`pu_lib.workflow.registry` fitted on
  the file and its percentile interval (:func:`pu_lib.prior.bootstrap_ci`); with ``--all``
  several side by side and the checks of :func:`pu_lib.prior.diagnostic.diagnose_prior`;
* ``fit FILE --s COLUMN --method NAME --out MODEL``: any registered classifier, built as a
  workflow config builds it (:func:`pu_lib.workflow.experiments.methods.make_method`), saved with
  joblib together with the feature columns; ``predict MODEL FILE --out FILE``: its
  predictions and ``predict_proba`` column 1;
* ``select FILE --s COLUMN --methods A,B,C``: cross-validated PU scorers
  (:mod:`pu_lib.model_selection`) for several methods, as a table;
* ``run CONFIG [snakemake options]``: the Snakemake workflow of this checkout on a config
  (Snakemake runs as a subprocess).

Input files are CSV or Parquet (by suffix). They are read and encoded as the workflow reads
a user's table (:func:`pu_lib.datasets.user.read_user_file`, with its checks, the columns it
leaves out and its missing-value policy: ``--missing``, ``--coerce-numeric``,
``--keep-column``): the ``s`` column must hold 0 and 1 (or
False / True), every other column is a feature, text columns are one-hot encoded as for
the mirror's data (:func:`pu_lib.datasets.canonicalize`), features become float32 as for
every data set of the workflow. Errors in the user's input (files, columns, values,
parameters) end the command with one line on standard error and exit status 1; output
files are written atomically (:mod:`pu_lib._io`), so a failed command leaves none.
Progress goes to standard error (``--quiet`` silences it), results to standard output.
"""

from __future__ import annotations

import argparse
import json
import numbers
import sys
import textwrap
import threading
import warnings
from pathlib import Path

from pu_lib.workflow import registry

__all__ = ["main"]

PROG = "pu-lib"
#: output table formats of ``predict --out``, by suffix
_TABLE_SUFFIXES = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}
#: the marker of a model file written by ``fit``
_MODEL_FORMAT = "pu_lib.workflow.cli model 1"
#: the class-prior estimator of ``pu-lib prior`` without ``--method`` (and the one ``select``
#: suggests when a method needs a prior and ``--prior`` is not given)
DEFAULT_PRIOR_ESTIMATOR = "dedpul"


class UserError(Exception):
    """A problem with the user's input: reported as one line, exit status 1."""


# --------------------------------------------------------------------------- messages
class _Messages:
    quiet = False


def _say(text: str) -> None:
    """A progress line on standard error."""
    if not _Messages.quiet:
        print(f"{PROG}: {text}", file=sys.stderr, flush=True)


def _format_warning(message, category, filename, lineno, line=None):  # noqa: ARG001
    return f"{PROG}: warning: {' '.join(str(message).split())}\n"


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


# --------------------------------------------------------------------------- input files
def _input_path(path: str) -> Path:
    from pu_lib.datasets.user import USER_FORMATS

    p = Path(path).expanduser()
    if p.suffix.lower() not in USER_FORMATS:
        raise UserError(f"{path}: unknown file type {p.suffix or '(none)'!r}; give a CSV or Parquet file "
                        f"({', '.join(USER_FORMATS)})")
    if not p.exists():
        raise UserError(f"{path}: no such file")
    if not p.is_file():
        raise UserError(f"{path}: not a file")
    return p.resolve()


def _output_path(path: str, suffixes, what: str) -> Path:
    p = Path(path).expanduser()
    if suffixes is not None and p.suffix.lower() not in suffixes:
        raise UserError(f"--out {path}: unknown {what} type {p.suffix or '(none)'!r} (known: {', '.join(suffixes)})")
    if p.is_dir():
        raise UserError(f"--out {path}: is a directory")
    return p


def _to_float32(frame):
    import numpy as np

    try:
        return np.ascontiguousarray(frame.to_numpy(dtype=np.float32, na_value=np.nan))
    except (TypeError, ValueError) as exc:
        raise UserError(f"features: cannot read every feature column as numbers ({_one_line(exc)})") from None


def _reader_policy(args):
    """The reading options of ``prior``, ``fit`` and ``select`` (:func:`_add_input`) as a
    :class:`pu_lib.datasets.user.ReadPolicy`."""
    from pu_lib.datasets.user import ReadPolicy

    return ReadPolicy(missing=getattr(args, "missing", None) or "refuse",
                      coerce_numeric=bool(getattr(args, "coerce_numeric", False)),
                      keep_columns=tuple(getattr(args, "keep_column", None) or ()))


def _reader_error(path: str, exc: ValueError) -> UserError:
    """A reader's message (:mod:`pu_lib.datasets.user`) as one line naming the file."""
    msg = _one_line(exc).removeprefix("file: ")
    if msg.startswith("s_column:"):  # the workflow's message names the config key: here it is --s
        msg = "--s" + msg[len("s_column"):]
    elif msg.startswith("keep_columns:"):
        msg = "--keep-column" + msg[len("keep_columns"):]
    return UserError(f"{path}: {msg}")


def _say_read(got) -> None:
    for line in got.messages:
        _say(line)


def read_pu_file(path: str, s_column: str, policy=None):
    """``(X, s, info)`` of a PU file: float32 features, 0/1 ``s`` and the column
    information a model keeps (``input_columns``, ``feature_names``, ``numeric``,
    ``categories``, ``medians``, ``read_policy``). Checks, reading policy (``policy``, a
    :class:`pu_lib.datasets.user.ReadPolicy`; default: refuse missing values) and
    encoding are the workflow's (:func:`pu_lib.datasets.user.user_dataset_spec` with
    ``s_column``, :func:`pu_lib.datasets.user.read_user_file`)."""
    from pu_lib.datasets.canonical import TARGET
    from pu_lib.datasets.user import ReadPolicy, read_user_spec, user_dataset_spec

    policy = policy or ReadPolicy()
    p = _input_path(path)
    try:
        spec = user_dataset_spec(p.stem, {"file": str(p), "s_column": s_column, **policy.as_dict()})
        _say(f"reading {path}")
        got = read_user_spec(spec)
    except ValueError as exc:
        raise _reader_error(path, exc) from None
    _say_read(got)
    s = got.table[TARGET].to_numpy()
    info = got.info
    X = _to_float32(got.table.drop(columns=[TARGET]))
    n_l = int(s.sum())
    _say(f"{len(s)} rows ({n_l} labeled, {len(s) - n_l} unlabeled), {X.shape[1]} features"
         + (f" ({len(info['categories'])} text column(s) one-hot encoded)" if info["categories"] else ""))
    return X, s, info


def _unread_rows(values, rows):
    """``values`` of the rows in ``rows`` placed back among all rows of the file: the
    others empty (``<NA>`` predictions, NaN probabilities)."""
    import numpy as np
    import pandas as pd

    if values.dtype.kind == "f":
        out = np.full(len(rows), np.nan)
        out[rows] = values
        return out
    out = pd.array(np.zeros(len(rows), dtype=values.dtype), dtype=f"{values.dtype.name.capitalize()}")
    out[~rows] = pd.NA
    out[rows] = values
    return out


def read_features_for(model: dict, path: str):
    """``(X, rows)``: the float32 features of ``path`` read as the model's training file
    was (:func:`pu_lib.datasets.user.read_user_file` with the model's columns and reading
    policy: the same numeric columns, medians and missing-value policy), and the mask of
    the file's rows in ``X`` (rows with a missing value are left out under ``drop``).
    The model's columns must all be there (extra columns are ignored); text values the
    model never saw get zeros in that column's one-hot columns (a warning names them)."""
    from pu_lib.datasets.user import USER_FORMATS, read_user_file

    p = _input_path(path)
    fmt = USER_FORMATS[p.suffix.lower()]
    _say(f"reading {path}")
    fitted = {"read_policy": {}, "medians": {}, **model}
    try:
        got = read_user_file(p, fmt, fitted=fitted)
    except ValueError as exc:
        raise _reader_error(path, exc) from None
    except Exception as exc:  # noqa: BLE001 - any unreadable file gets one clear message
        raise UserError(f"{path}: cannot read it as {fmt}: {_one_line(exc)}") from None
    _say_read(got)
    X = _to_float32(got.table)
    _say(f"{X.shape[0]} rows, {X.shape[1]} features")
    return X, got.rows


# --------------------------------------------------------------------------- parameters
def _value(text: str):
    """A parameter value from the command line: JSON (numbers, true / false / null, lists,
    objects), ``None`` / ``True`` / ``False`` as Python spells them, else the string."""
    python = {"None": None, "True": True, "False": False}
    if text in python:
        return python[text]
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_params(items, option: str = "--param") -> dict:
    """``{"k": value}`` from ``["k=v", ...]`` (:func:`_value` reads the values)."""
    out = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UserError(f"{option} {item!r}: expected NAME=VALUE")
        out[key.strip()] = _value(value.strip())
    return out


def _check_method(name: str, kind: str) -> None:
    try:
        registry.get(name, kind)
    except ValueError as exc:
        raise UserError(f"--method: {_one_line(exc)}") from None


def build_estimator(name: str, kind: str, params: dict, base=None, base_params=None, random_state=0, n_jobs=1):
    """An unfitted estimator of the registered method ``name`` exactly as a workflow config
    ``{method: name, params: ..., base: ..., base_params: ...}`` builds it
    (:func:`pu_lib.workflow.experiments.methods.make_method`: the parameters are checked first)."""
    from pu_lib.workflow.experiments.methods import make_method

    _check_method(name, kind)
    spec = {"method": name, "params": dict(params or {})}
    if base is not None:
        spec["base"] = base
    if base_params:
        spec["base_params"] = dict(base_params)
    try:
        return make_method(spec, random_state=random_state, n_jobs=n_jobs)
    except ValueError as exc:
        raise UserError(f"{name}: {_one_line(exc)}") from None


def _fit(est, X, s, name: str):
    try:
        return est.fit(X, s)
    except ValueError as exc:  # the estimator's own check of its parameters or of the data
        raise UserError(f"{name}: {_one_line(exc)}") from None


# --------------------------------------------------------------------------- output
def write_table(df, path: Path) -> None:
    """``df`` as CSV or Parquet (by the suffix of ``path``), atomically."""
    from pu_lib._io import atomic_path, write_parquet_atomic

    if _TABLE_SUFFIXES[path.suffix.lower()] == "parquet":
        write_parquet_atomic(df, path)
    else:
        with atomic_path(path, suffix=".csv") as tmp:
            df.to_csv(tmp, index=False)


def _fmt(v: float) -> str:
    return f"{v:.4f}"


def _text_table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(lines)


# --------------------------------------------------------------------------- prior
_QUANTITY_TEXT = {
    "alpha": "positives among the unlabeled rows, P(y = 1 | s = 0)",
    "prior": "positives in the whole file, P(y = 1)",
    "c": "label frequency, P(s = 1 | y = 1)",
}


def cmd_prior(args) -> int:
    from pu_lib.prior.bootstrap import QUANTITIES, bootstrap_ci

    if args.all:
        return _cmd_prior_all(args)
    if args.bootstrap is None:
        args.bootstrap = _BOOTSTRAP_DEFAULTS["one"]
    _check_method(args.method, "prior")
    params = parse_params(args.param)
    est = build_estimator(args.method, "prior", params, args.base, parse_params(args.base_param, "--base-param"),
                          random_state=args.random_state, n_jobs=1)
    X, s, _ = read_pu_file(args.file, args.s, policy=_reader_policy(args))
    result = {"method": args.method, "file": args.file, "n_rows": int(len(s)), "n_labeled": int(s.sum())}
    need, n_l = est.min_labeled(), int(s.sum())
    if n_l < need:
        raise UserError(f"{args.method} needs at least {need} labeled rows ({est._min_labeled_why()}); "
                        f"{args.file} has {n_l}")
    if args.bootstrap and args.resampling == "half" and n_l // 2 < need:
        raise UserError(f"--bootstrap: a half-sample holds {n_l // 2} of the {n_l} labeled rows and {args.method} "
                        f"needs {need}; give --bootstrap 0 (the estimate only) or --resampling bootstrap")
    if args.bootstrap == 0:
        _say(f"fitting {args.method}")
        _fit(est, X, s, args.method)
        for q, attr in QUANTITIES.items():
            result[q] = {"estimate": float(getattr(est, attr))}
    else:
        from pu_lib._logging import Progress

        _say(f"fitting {args.method} on all rows and on {args.bootstrap} {args.resampling} resamples "
             f"({args.n_jobs} thread{'s' if args.n_jobs != 1 else ''})")
        progress = Progress(args.bootstrap, f"{PROG}: {args.method} resamples", unit="resamples",
                            interval=args.progress_interval, terminal=None if _Messages.quiet else sys.stderr)
        lock = threading.Lock()

        def tick(n):
            with lock:
                progress.update(n)

        res = bootstrap_ci(est, X, s, n_resamples=args.bootstrap, confidence=args.confidence,
                           random_state=args.random_state, n_jobs=args.n_jobs, resampling=args.resampling,
                           progress=tick)
        for q in QUANTITIES:
            iv = getattr(res, q)
            result[q] = {"estimate": float(iv.estimate), "low": float(iv.low), "high": float(iv.high)}
        result.update(confidence=args.confidence, n_resamples=args.bootstrap, resampling=args.resampling)
    if args.json:
        print(json.dumps(result))
        return 0
    n, n_l = result["n_rows"], result["n_labeled"]
    print(f"{args.method} on {args.file}: {n} rows, {n_l} labeled, {n - n_l} unlabeled")
    header = ["quantity", "estimate"] + (["low", "high"] if args.bootstrap else []) + ["meaning"]
    rows = [[q, _fmt(result[q]["estimate"])]
            + ([_fmt(result[q]["low"]), _fmt(result[q]["high"])] if args.bootstrap else []) + [_QUANTITY_TEXT[q]]
            for q in QUANTITIES]
    print(_text_table(header, rows))
    if args.bootstrap:
        plan = "half-samples" if args.resampling == "half" else "bootstrap resamples"
        print(f"interval: {args.confidence:g} percentile interval over {args.bootstrap} stratified {plan} "
              "(it covers the estimator's variance, not its bias)")
    return 0


#: ``--bootstrap`` when not given: 200 resamples for one estimator (bootstrap_ci's
#: default), 20 per estimator with ``--all`` (seven estimators: 147 fits)
_BOOTSTRAP_DEFAULTS = {"one": 200, "all": 20}


def _cmd_prior_all(args) -> int:
    """``pu-lib prior FILE --all``: :func:`pu_lib.prior.diagnostic.diagnose_prior` as a report."""
    from pu_lib.prior.diagnostic import DEFAULT_ESTIMATORS, diagnose_prior

    if args.bootstrap is None:
        args.bootstrap = _BOOTSTRAP_DEFAULTS["all"]
    if args.resampling != "half":
        raise UserError("--all: the intervals are over stratified half-samples; --resampling bootstrap is for "
                        "one estimator")
    names = _split_names(args.methods, "--methods") if args.methods else list(DEFAULT_ESTIMATORS)
    for m in names:
        _check_method(m, "prior")
    if args.param or args.base:
        raise UserError("--all: --param and --base set one estimator's parameters; run it alone with --method")
    priors = None
    if args.priors:
        try:
            priors = [float(v) for v in _split_names(args.priors, "--priors")]
        except ValueError:
            raise UserError(f"--priors {args.priors!r}: comma-separated numbers in (0, 1)") from None
    sweep_method = args.sweep_method
    if sweep_method is not None:
        _check_method(sweep_method, "classifier")
        if "prior" not in registry.parameter_schema(sweep_method):
            raise UserError(f"--sweep-method {sweep_method}: takes no prior; choose a classifier with prior=")
    X, s, _ = read_pu_file(args.file, args.s, policy=_reader_policy(args))
    _say(f"running {', '.join(names)} with {args.bootstrap} half-samples each, a SCAR check and a prior sweep")
    diag = diagnose_prior(X, s, names, scenario=args.scenario, n_resamples=args.bootstrap,
                          confidence=args.confidence, priors=priors,
                          classifier=None if sweep_method is None else
                          registry.make_estimator(sweep_method, random_state=args.random_state),
                          random_state=args.random_state, n_jobs=args.n_jobs)
    if args.json:
        print(json.dumps({"file": args.file, **diag.to_dict()}))
        return 0
    print(f"class-prior estimators on {args.file}")
    print(diag.summary())
    return 0


# --------------------------------------------------------------------------- fit / predict
def cmd_fit(args) -> int:
    import joblib

    import pu_lib

    _check_method(args.method, "classifier")
    out = _output_path(args.out, None, "model")
    est = build_estimator(args.method, "classifier", parse_params(args.param), args.base,
                          parse_params(args.base_param, "--base-param"), random_state=args.random_state,
                          n_jobs=args.n_jobs)
    X, s, info = read_pu_file(args.file, args.s, policy=_reader_policy(args))
    _say(f"fitting {args.method}")
    _fit(est, X, s, args.method)
    model = {
        "format": _MODEL_FORMAT,
        "pu_lib_version": getattr(pu_lib, "__version__", None),
        "method": args.method,
        "params": parse_params(args.param),
        "random_state": args.random_state,
        "s_column": args.s,
        "train_file": str(args.file),
        "n_rows": int(len(s)),
        **info,
        "estimator": est,
    }
    from pu_lib._io import atomic_path

    with atomic_path(out, suffix=".joblib") as tmp:
        joblib.dump(model, tmp)
    prior = getattr(est, "prior_", None)
    note = f" (class prior {float(prior):.4f})" if isinstance(prior, numbers.Real) and not isinstance(prior, bool) else ""
    print(f"{args.method} fitted on {len(s)} rows x {X.shape[1]} features{note}, saved to {args.out}")
    return 0


def load_model(path: str) -> dict:
    """A model file written by ``pu-lib fit``; ``UserError`` for anything else."""
    import joblib

    p = Path(path).expanduser()
    if not p.is_file():
        raise UserError(f"{path}: no such model file")
    try:
        model = joblib.load(p)
    except Exception as exc:  # noqa: BLE001 - any unreadable file gets one clear message
        raise UserError(f"{path}: not a model file of pu-lib fit ({_one_line(exc)})") from None
    if not isinstance(model, dict) or model.get("format") != _MODEL_FORMAT:
        raise UserError(f"{path}: not a model file of pu-lib fit")
    return model


def cmd_predict(args) -> int:
    import numpy as np
    import pandas as pd

    out = _output_path(args.out, _TABLE_SUFFIXES, "output file")
    model = load_model(args.model)
    X, rows = read_features_for(model, args.file)
    est = model["estimator"]
    _say(f"predicting with {model['method']}")
    pred = np.asarray(est.predict(X)).astype(np.int8)
    frame = {"prediction": pred}
    if hasattr(est, "predict_proba"):
        frame["proba"] = np.asarray(est.predict_proba(X))[:, 1]
        try:
            from pu_lib.calibration import PROBA_KINDS, proba_kind

            _say(f"proba is {PROBA_KINDS[proba_kind(est)]} (docs/probabilities.md)")
        except ValueError:
            pass
    if not rows.all():  # missing: drop: rows with a missing value get no prediction (empty cells)
        frame = {k: _unread_rows(v, rows) for k, v in frame.items()}
        _say(f"{int((~rows).sum())} of {len(rows)} rows have a missing value and no prediction (missing: drop)")
    write_table(pd.DataFrame(frame), out)
    print(f"{len(pred)} predictions of {model['method']} written to {args.out}"
          + (f" ({int((~rows).sum())} rows with a missing value left empty)" if not rows.all() else ""))
    return 0


# --------------------------------------------------------------------------- select
def _split_names(text: str, option: str) -> list[str]:
    names = [n.strip() for n in (text or "").split(",") if n.strip()]
    if not names:
        raise UserError(f"{option}: give one or more comma-separated names")
    return names


def _method_params(methods: list[str], items) -> dict[str, dict]:
    """``--param k=v`` for every method that takes ``k`` (an error when none does) and
    ``--param METHOD.k=v`` for one method."""
    per = {m: {} for m in methods}
    for key, value in parse_params(items).items():
        target, dot, k = key.partition(".")
        if dot and target in per:
            per[target][k] = value
            continue
        takers = [m for m in methods if key in registry.parameter_schema(m)]
        if not takers:
            raise UserError(f"--param {key}: no method of {', '.join(methods)} takes it "
                            "(METHOD.NAME=VALUE sets one method's parameter)")
        for m in takers:
            per[m][key] = value
    return per


def _resolve_scoring_prior(prior, X, s, scenario, random_state):
    """``--prior``: a number, or the name of a prior estimator fitted on the whole file.
    Either is checked against the file's labels
    (:func:`pu_lib._validation.check_prior_feasible`: in the single-training-set scenario
    a prior below the labeled share is impossible): ``UserError`` with both numbers."""
    from pu_lib._validation import check_prior_feasible

    if prior is None:
        return None, None
    value = _value(prior)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return check_prior_feasible(value, s, scenario), value
        except ValueError as exc:
            raise UserError(f"--prior: {_one_line(exc)}") from None
    if isinstance(value, str) and value in registry.names("prior"):
        from pu_lib.prior import population_prior

        _say(f"estimating the class prior with {value} on all rows")
        est = _fit(build_estimator(value, "prior", {}, random_state=random_state), X, s, f"--prior {value}")
        try:
            pi = check_prior_feasible(population_prior(est, scenario), s, scenario,
                                      name=f"the prior estimated by {value} ({scenario})")
        except ValueError as exc:
            raise UserError(f"--prior {value}: {_one_line(exc)}; give --prior as a number") from None
        _say(f"class prior {pi:.4f} ({value}, {scenario})")
        return pi, value
    raise UserError(f"--prior {prior!r}: a number in (0, 1) or a prior estimator: {', '.join(registry.names('prior'))}")


def cmd_select(args) -> int:
    import numpy as np
    from sklearn.model_selection import cross_validate

    from pu_lib.model_selection import (PRIOR_SCORERS, PU_SCORERS, PUStratifiedKFold, degenerate_predictions,
                                        make_pu_scorer, positive_rate_scorer)

    methods = _split_names(args.methods, "--methods")
    for m in methods:
        _check_method(m, "classifier")
    if args.scoring:
        scorers = _split_names(args.scoring, "--scoring")
        unknown = [n for n in scorers if n not in PU_SCORERS]
        if unknown:
            raise UserError(f"--scoring: unknown scorer(s) {', '.join(unknown)}; known: {', '.join(PU_SCORERS)}")
        needy = [n for n in scorers if n in PRIOR_SCORERS]
        if needy and args.prior is None:
            raise UserError(f"--scoring {', '.join(needy)}: needs the class prior; give --prior")
    else:
        scorers = [n for n in PU_SCORERS if args.prior is not None or n not in PRIOR_SCORERS]
    per_params = _method_params(methods, args.param)
    base_params = parse_params(args.base_param, "--base-param")
    method_prior = _prior_option(args.prior)
    estimators = {}
    for m in methods:
        params = dict(per_params[m])
        if method_prior is not None and "prior" in registry.parameter_schema(m) and "prior" not in params:
            params["prior"] = method_prior
        base = args.base if registry.get(m).takes_base else None
        estimators[m] = build_estimator(m, "classifier", params, base, base_params if base else None,
                                        random_state=args.random_state, n_jobs=args.n_jobs)
    missing = [m for m, est in estimators.items() if _missing_prior(est)]
    if missing:  # refused before the file is read or anything is fitted
        raise UserError(f"--methods: {', '.join(missing)} need{'s' if len(missing) == 1 else ''} the class prior "
                        f"and --prior is not given: give --prior (a number in (0, 1), or a class-prior estimator "
                        f"fitted on the file, e.g. --prior {DEFAULT_PRIOR_ESTIMATOR}, the default of pu-lib prior; "
                        "pu-lib prior FILE --all compares several) or --param METHOD.prior=VALUE")
    X, s, _ = read_pu_file(args.file, args.s, policy=_reader_policy(args))
    pi, _ = _resolve_scoring_prior(args.prior, X, s, args.scenario, args.random_state)
    try:
        scoring = {n: make_pu_scorer(n, prior=pi, scenario=args.scenario) for n in scorers}
    except ValueError as exc:
        raise UserError(f"--prior / --scoring: {_one_line(exc)}") from None
    scoring[_RATE] = positive_rate_scorer
    cv = PUStratifiedKFold(n_splits=args.cv, shuffle=True, random_state=args.random_state)
    table = []
    for i, m in enumerate(methods, 1):
        _say(f"method {i}/{len(methods)}: {m}, {args.cv}-fold cross-validation")
        res = cross_validate(estimators[m], X, s, cv=cv, scoring=scoring, error_score="raise")
        row = {"method": m}
        for n in scorers:
            v = np.asarray(res[f"test_{n}"], dtype=float)
            row[n] = float(v.mean())
            row[f"{n}_sd"] = float(v.std(ddof=1)) if len(v) > 1 else 0.0
        rates = np.asarray(res[f"test_{_RATE}"], dtype=float)
        row["positive_rate"] = float(rates.mean())
        row["degenerate"] = degenerate_predictions(rates)
        row["fit_seconds"] = float(np.mean(res["fit_time"]))
        table.append(row)
    # a model that predicts one class on every fold is listed last, whatever it scores
    table = [r for r in table if r["degenerate"] is None] + [r for r in table if r["degenerate"] is not None]
    if args.json:
        print(json.dumps({"file": args.file, "cv": args.cv, "prior": pi, "scenario": args.scenario, "rows": table}))
        return 0
    flagged = any(r["degenerate"] is not None for r in table)
    header = ["method"] + scorers + (["note"] if flagged else [])
    rows = [[r["method"]] + [f"{r[n]:.4f} ± {r[f'{n}_sd']:.4f}" for n in scorers]
            + ([f"degenerate: {r['degenerate']}" if r["degenerate"] else ""] if flagged else []) for r in table]
    print(_text_table(header, rows))
    note = f"mean ± sd over {args.cv} folds (PUStratifiedKFold); higher is better in every column"
    if any(n.endswith("_risk") for n in scorers):
        note += " (the risks are negated)"
    if pi is not None:
        note += f"; class prior {pi:.4f}"
    print(note)
    if flagged:
        print("degenerate: the method predicted a single class on every fold, so its scores say nothing about "
              "separating the classes (a prior-based score can still look good); it is listed last")
    return 0


#: the key of the predicted-positive share in ``select``'s cross-validation scores
_RATE = "_positive_rate"


def _prior_option(prior):
    """``--prior`` as the methods that take ``prior=`` get it: None, a number or a
    class-prior estimator's name; ``UserError`` for anything else (before any fit)."""
    if prior is None:
        return None
    value = _value(prior)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value in registry.names("prior"):
        return value
    raise UserError(f"--prior {prior!r}: a number in (0, 1) or a prior estimator: {', '.join(registry.names('prior'))}")


def _missing_prior(est) -> bool:
    """Whether ``est`` would refuse to fit for want of a class prior: it has a ``prior``
    parameter left None, and uses it (the propensity-weighted classifiers of
    :mod:`pu_lib.sar` use it only in the case-control scenario)."""
    params = est.get_params(deep=False)
    if "prior" not in params or params["prior"] is not None:
        return False
    return not hasattr(est, "_fit_with_propensity") or params.get("scenario") == "case_control"


# --------------------------------------------------------------------------- run
def default_snakefile() -> Path:
    """The Snakefile of the checkout this package is installed from (editable install)."""
    import pu_lib

    return Path(pu_lib.__file__).resolve().parents[1] / "Snakefile"


_CORES_OPTIONS = ("--cores", "-c", "--jobs", "-j", "--profile", "--executor", "-e", "--workflow-profile")


def snakemake_command(config: str, extra: list[str], snakefile: str | None = None,
                      rerun_incomplete: bool = False) -> list[str]:
    """The Snakemake command line of ``pu-lib run``: this checkout's Snakefile, the user's
    config as the whole config (``--replace-workflow-config``: the repository's
    ``config/config.yaml`` is not merged in), ``--cores 1`` unless the options set cores,
    jobs, a profile or an executor, ``--rerun-incomplete`` with ``rerun_incomplete``
    (:func:`_check_previous_run` decides), then ``extra`` as given."""
    import importlib.util

    cfg = Path(config).expanduser()
    if not cfg.is_file():
        raise UserError(f"{config}: no such config file")
    sf = Path(snakefile).expanduser() if snakefile else default_snakefile()
    if not sf.is_file():
        raise UserError(f"no Snakefile at {sf}: pu-lib run needs the repository checkout the package is installed "
                        "from (pip install -e .), or --snakefile PATH")
    if importlib.util.find_spec("snakemake") is None:
        raise UserError("pu-lib run needs Snakemake: pip install -e '.[workflow]'")
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(sf), "--configfile", str(cfg),
           "--replace-workflow-config"]
    given = {a.split("=", 1)[0] for a in extra}
    dry = bool(given & {"-n", "--dry-run", "--dryrun"})
    if not dry and not given & set(_CORES_OPTIONS) and not any(a.startswith("-c") and a[2:].isdigit() for a in extra):
        cmd += ["--cores", "1"]
    if rerun_incomplete:
        cmd.append("--rerun-incomplete")
    return cmd + list(extra)


#: pu-lib run's record of the Snakemake process it started, in ``.snakemake/`` of the
#: working directory beside Snakemake's ``locks/`` (removed when that process has ended)
RUN_STATE_FILE = "pu-lib-run.json"
#: Snakemake options with which it takes no lock (a dry run, --nolock, the lock's own removal,
#: listings and graphs, the linter): such a command never stops at another run's lock, and
#: pu-lib neither removes a stale lock for it nor records its pid
_NO_LOCK_OPTIONS = frozenset({"-n", "--dry-run", "--dryrun", "--unlock", "--nolock", "--lint", "--dag", "--rulegraph",
                             "--filegraph", "--d3dag", "--summary", "-S", "--detailed-summary", "-D", "-l", "--lt",
                             "--cleanup-metadata", "--cm", "--help", "-h", "--version", "-v"})
#: signals that pu-lib run passes on to Snakemake's process group
_FORWARDED_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")


def _snakemake_workdir(extra: list[str]) -> Path:
    """Snakemake's working directory: its ``--directory`` / ``-d`` option, else the current one."""
    value = None
    for i, a in enumerate(extra):
        if a in ("--directory", "-d") and i + 1 < len(extra):
            value = extra[i + 1]
        elif a.startswith("--directory="):
            value = a.split("=", 1)[1]
        elif a.startswith("-d") and not a.startswith("--") and len(a) > 2:
            value = a[2:]
    return Path(value).expanduser().resolve() if value else Path.cwd().resolve()


def _is_snakemake(argv: list[str]) -> bool:
    """Whether a command line is Snakemake's (``snakemake ...``, ``python .../snakemake ...``,
    ``python -m snakemake ...``)."""
    import os

    return (any(os.path.basename(a) == "snakemake" for a in argv[:2])
            or any(a == "-m" and b == "snakemake" for a, b in zip(argv, argv[1:])))


def _snakemake_processes(workdir: Path) -> list[tuple[int, str]] | None:
    """``(pid, command line)`` of the running Snakemake processes (zombies left out) whose
    working directory is ``workdir`` (Snakemake changes into its ``--directory``), this
    process left out; None when that cannot be known (psutil, a dependency of Snakemake,
    missing). Processes of other users, whose directory cannot be read, are not seen."""
    import os

    try:
        import psutil
    except ImportError:
        return None
    workdir = Path(workdir).resolve()
    found = []
    for proc in psutil.process_iter(["pid", "cmdline", "status"]):
        try:
            info = proc.info
            argv = info.get("cmdline") or []
            if info["pid"] == os.getpid() or info.get("status") == psutil.STATUS_ZOMBIE or not _is_snakemake(argv):
                continue
            if Path(proc.cwd()).resolve() != workdir:
                continue
        except (psutil.Error, OSError):
            continue
        found.append((info["pid"], " ".join(argv)))
    return found


def _read_run_state(workdir: Path) -> dict | None:
    try:
        state = json.loads((workdir / ".snakemake" / RUN_STATE_FILE).read_text())
        return state if isinstance(state, dict) and isinstance(state.get("pid"), int) else None
    except (OSError, ValueError):
        return None


def _pid_alive(pid: int) -> bool:
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _check_previous_run(workdir: Path, takes_lock: bool) -> bool:
    """What an earlier run in ``workdir`` left, before Snakemake starts; returns whether
    to pass ``--rerun-incomplete``.

    * Another Snakemake process runs in ``workdir`` and a lock is held: a command that takes
      the lock (``takes_lock``) stops with one line naming it (:class:`UserError`); a dry run
      and the like go on as given (no ``--rerun-incomplete``: that run's jobs in progress
      are incomplete too).
    * No Snakemake process runs there: the locks in ``.snakemake/locks`` are stale (a run
      killed before it could remove them, e.g. by SIGKILL or a lost node), so a command that
      takes the lock removes them, as ``snakemake --unlock`` does, and says so; and
      ``--rerun-incomplete`` redoes the jobs such a run left incomplete.
    """
    snake = workdir / ".snakemake"
    locks = sorted((snake / "locks").glob("*.lock")) if (snake / "locks").is_dir() else []
    incomplete = (snake / "incomplete").is_dir() and any(p.is_file() for p in (snake / "incomplete").rglob("*"))
    state = _read_run_state(workdir)
    live = _snakemake_processes(workdir)
    if live is None:  # cannot look at the processes: only pu-lib's own record tells
        live = [] if state is None or not _pid_alive(state["pid"]) else [(state["pid"], state.get("command", "?"))]
        if not live and state is None and locks:
            return False  # a lock of unknown origin: Snakemake reports it
    if live:
        if takes_lock and locks:
            ours = [p for p in live if state and p[0] == state["pid"]]
            pid, line = (ours or live)[0]
            raise UserError(f"another run of the workflow holds the lock in {snake / 'locks'}: pid {pid} is running "
                            f"({line}); wait for it to end, or stop it (kill {pid}) and run this command again")
        return False
    if takes_lock:
        if locks:
            for lock in locks:
                lock.unlink(missing_ok=True)
            who = (f"pid {state['pid']} no longer runs" if state else
                   f"its lock is in {snake / 'locks'}, and no snakemake process runs in {workdir}")
            _say(f"a previous run ended without cleaning up ({who}): unlocked, rerunning incomplete jobs "
                 "(--rerun-incomplete)")
        elif incomplete:
            _say("a previous run left incomplete outputs: rerunning their jobs (--rerun-incomplete)")
        if state is not None:
            (snake / RUN_STATE_FILE).unlink(missing_ok=True)
    return True


def _child_setup():
    """The function the Snakemake child runs between fork and exec (prepared here: the child
    imports nothing): its own process group (pu-lib forwards signals to the group, Snakemake
    and its local jobs); on Linux also SIGTERM should pu-lib die without passing a signal
    on (SIGKILL), so that no Snakemake outlives it unseen."""
    import os
    import signal

    parent = os.getpid()
    prctl = None
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            prctl = None

    def setup():  # pragma: no cover - runs in the child
        os.setpgid(0, 0)
        if prctl is not None:
            prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG
            if os.getppid() != parent:  # pu-lib died before that
                os._exit(128 + int(signal.SIGTERM))

    return setup


def run_snakemake(cmd: list[str], workdir: Path | None = None) -> int:
    """Run ``cmd`` (Snakemake) as a child in its own process group and wait for it;
    SIGINT, SIGTERM and SIGHUP that pu-lib receives go to that group (Snakemake stops its
    jobs and removes its lock). With ``workdir`` the child's pid is recorded in
    ``workdir/.snakemake/`` (:data:`RUN_STATE_FILE`) while it runs.

    Returns the exit status as a shell reports it: ``128 + N`` when pu-lib got signal
    ``N`` (130 for SIGINT, 143 for SIGTERM) or when Snakemake died of signal ``N``,
    else Snakemake's own status."""
    import datetime
    import os
    import shlex
    import signal
    import subprocess

    if os.name != "posix":  # no process groups to manage
        rc = subprocess.call(cmd)
        return 128 - rc if rc < 0 else rc
    received: list[int] = []
    proc = None

    def forward(signum, frame):  # noqa: ARG001
        received.append(signum)
        if proc is not None:
            try:
                os.killpg(proc.pid, signum)
            except (ProcessLookupError, PermissionError):
                pass

    signums = [getattr(signal, name) for name in _FORWARDED_SIGNALS if hasattr(signal, name)]
    previous = {s: signal.signal(s, forward) for s in signums}
    state = None
    try:
        proc = subprocess.Popen(cmd, preexec_fn=_child_setup())  # noqa: PLW1509 - pu-lib runs no thread here
        for signum in received:  # a signal that came before the child was there
            try:
                os.killpg(proc.pid, signum)
            except (ProcessLookupError, PermissionError):
                pass
        if workdir is not None:
            from pu_lib._io import write_text_atomic

            state = workdir / ".snakemake" / RUN_STATE_FILE
            state.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(json.dumps({"pid": proc.pid, "pu_lib_pid": os.getpid(), "command": shlex.join(cmd),
                                          "started": datetime.datetime.now().astimezone().isoformat()}) + "\n", state)
        rc = proc.wait()
    finally:
        if proc is not None and proc.returncode is None:  # pu-lib itself fails: no orphan
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait()
        for s, handler in previous.items():
            signal.signal(s, handler)
        # kept when Snakemake was killed (its lock stays too): the next run names the pid
        killed = proc is not None and proc.returncode is not None and proc.returncode < 0 and not received
        if state is not None and not killed and (_read_run_state(workdir) or {}).get("pid") == proc.pid:
            state.unlink(missing_ok=True)
    if received:
        try:  # jobs of the group that outlived Snakemake
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        return 128 + int(received[0])
    return 128 - rc if rc < 0 else rc


def cmd_run(args) -> int:
    import shlex

    extra = list(args.snakemake_args)
    given = {a.split("=", 1)[0] for a in extra}
    takes_lock = not (given & _NO_LOCK_OPTIONS or any(a.startswith("--list") for a in given))
    snakemake_command(args.config, extra, args.snakefile)  # checks the config, Snakefile and Snakemake first
    workdir = _snakemake_workdir(extra)
    rerun = _check_previous_run(workdir, takes_lock)
    # a dry run with it shows the jobs that the run will redo (without, it stops at them)
    dry = bool(given & {"-n", "--dry-run", "--dryrun"})
    rerun = rerun and (takes_lock or dry) and not given & {"--rerun-incomplete", "--ri", "--ignore-incomplete", "--ii"}
    cmd = snakemake_command(args.config, extra, args.snakefile, rerun_incomplete=rerun)
    _say("running " + shlex.join(cmd))
    return run_snakemake(cmd, workdir if takes_lock else None)


# --------------------------------------------------------------------------- parser
class _Formatter(argparse.HelpFormatter):
    """Help with the description and epilog filled paragraph by paragraph."""

    def _fill_text(self, text, width, indent):
        return "\n\n".join(textwrap.fill(" ".join(par.split()), width, initial_indent=indent, subsequent_indent=indent)
                           for par in text.split("\n\n"))


def _wrapped(title: str, names) -> str:
    return f"{title}: " + ", ".join(names)


def _methods_epilog(kinds=("classifier", "prior"), scorers: bool = False) -> str:
    parts = []
    if "classifier" in kinds:
        parts.append(_wrapped("classifiers (--method)", registry.names("classifier")))
    if "prior" in kinds:
        parts.append(_wrapped("class-prior estimators (prior --method, select --prior)", registry.names("prior")))
    if scorers:
        # the names from pu_lib.metrics: pu_lib.model_selection imports scikit-learn (seconds)
        from pu_lib.metrics import PRIOR_SCORER_NAMES, PU_SCORER_NAMES

        parts.append(_wrapped("scorers (--scoring; * needs --prior)",
                              [n + ("*" if n in PRIOR_SCORER_NAMES else "") for n in PU_SCORER_NAMES]))
    parts.append("Parameters of a method: docs/methods.md (python -m pu_lib.workflow.registry), e.g. --param max_depth=4; "
                 "values are read as JSON (numbers, true, null, [1, 2]) or else as text.")
    return "\n\n".join(parts)


def _add_quiet(p, default=False):
    p.add_argument("-q", "--quiet", action="store_true", default=default,
                   help="no progress messages on standard error")


def _add_input(p):
    """FILE and its --s column (prior, fit, select), and how the file is read
    (:func:`_reader_policy`; docs/own_data.md, "How a file is read")."""
    p.add_argument("file", metavar="FILE", help="CSV or Parquet file")
    p.add_argument("--s", required=True, metavar="COLUMN", help="the label column: 1 labeled positive, 0 unlabeled")
    p.add_argument("--missing", choices=("refuse", "drop", "impute"), default="refuse",
                   help="rows with a missing feature value: refuse (an error naming the columns; the default), "
                        "drop the rows, or impute (a number: its column's median; a text value: zeros in its "
                        "one-hot columns); predict applies the choice made at fit")
    p.add_argument("--coerce-numeric", action="store_true",
                   help="read the few text cells of a numeric column (at least 90%% numbers) as missing values "
                        "instead of stopping with an error")
    p.add_argument("--keep-column", action="append", metavar="NAME",
                   help="keep a column that would be left out as a row index, an identifier, empty or a text "
                        "column of more than 100 distinct values (repeatable)")


def _add_common(p, seed=True, jobs=True):
    if seed:
        p.add_argument("--random-state", type=int, default=0, metavar="SEED",
                       help="seed of every random choice (default 0)")
    if jobs:
        p.add_argument("--n-jobs", type=int, default=1, metavar="N", help="threads (default 1)")


def _add_method_options(p, multi: bool = False):
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help=("a parameter of the method (repeatable)" if not multi else
                         "a parameter of every method that takes it, or METHOD.NAME=VALUE for one (repeatable)"))
    p.add_argument("--base", metavar="NAME", help="base classifier of methods that take one "
                   "(pu_lib.base_learners.BASE_ESTIMATORS, e.g. logistic_regression, xgboost)")
    p.add_argument("--base-param", action="append", metavar="NAME=VALUE", help="a parameter of the base classifier")


def build_parser() -> argparse.ArgumentParser:
    fmt = _Formatter
    parser = argparse.ArgumentParser(
        prog=PROG, formatter_class=fmt,
        description="PU learning on a CSV or Parquet file: class priors, fitting and applying classifiers, "
                    "model selection without negatives, and the benchmark workflow (docs/cli.md).",
        epilog=_methods_epilog(scorers=True))
    _add_quiet(parser)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("prior", formatter_class=fmt, help="estimate the class prior, with an interval",
                       description="Estimate the class prior of a PU file with a registered class-prior estimator "
                                   "and its percentile interval over stratified resamples "
                                   "(pu_lib.prior.bootstrap_ci).",
                       epilog=_methods_epilog(("prior",)))
    _add_input(p)
    p.add_argument("--method", default=DEFAULT_PRIOR_ESTIMATOR, metavar="NAME",
                   help="class-prior estimator (default %(default)s)")
    _add_method_options(p)
    import inspect

    from pu_lib.prior.bootstrap import RESAMPLING, bootstrap_ci

    defaults = inspect.signature(bootstrap_ci).parameters
    p.add_argument("--bootstrap", type=_nonnegative_int, default=None, metavar="B",
                   help=f"resamples for the interval (default {_BOOTSTRAP_DEFAULTS['one']}, with --all "
                        f"{_BOOTSTRAP_DEFAULTS['all']} per estimator; 0: the estimate only)")
    p.add_argument("--confidence", type=float, default=defaults["confidence"].default,
                   help="level of the interval (default %(default)s)")
    p.add_argument("--resampling", choices=RESAMPLING, default=defaults["resampling"].default,
                   help="half: stratified half-samples without replacement; bootstrap: with replacement "
                        "(default %(default)s; see pu_lib.prior.bootstrap)")
    p.add_argument("--progress-interval", type=float, default=10.0, metavar="SECONDS", help=argparse.SUPPRESS)
    p.add_argument("--all", action="store_true",
                   help="check the prior before trusting it (pu_lib.prior.diagnostic.diagnose_prior): several "
                        "estimators side by side with their intervals, the pairs whose intervals do not overlap, estimators with too "
                        "few labeled rows, a SCAR check (a permutation test) and a prior sweep of a classifier")
    from pu_lib.prior.diagnostic import DEFAULT_ESTIMATORS  # NumPy and the prior names only

    p.add_argument("--methods", metavar="A,B,C",
                   help=f"with --all: the estimators (default {', '.join(DEFAULT_ESTIMATORS)})")
    p.add_argument("--scenario", choices=("single_training_set", "case_control"), default="single_training_set",
                   help="with --all: which prior is compared (default %(default)s: P(y = 1) of the file; "
                        "case_control: of the unlabeled rows)")
    p.add_argument("--sweep-method", metavar="NAME", help="with --all: the prior-taking classifier of the prior "
                   "sweep (default pu_extra_trees with 50 trees)")
    p.add_argument("--priors", metavar="P,P,...", help="with --all: the priors of the sweep (default: 9 from the "
                   "labeled share to above the largest estimate)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    _add_common(p)
    _add_quiet(p, argparse.SUPPRESS)
    p.set_defaults(func=cmd_prior)

    p = sub.add_parser("fit", formatter_class=fmt, help="fit a classifier and save it",
                       description="Fit a registered PU classifier on a file and save it with joblib (the model "
                                   "keeps the feature columns; pu-lib predict applies it).",
                       epilog=_methods_epilog(("classifier",)))
    _add_input(p)
    p.add_argument("--method", required=True, metavar="NAME", help="registered classifier")
    _add_method_options(p)
    p.add_argument("--out", required=True, metavar="MODEL", help="model file to write (e.g. model.joblib)")
    _add_common(p)
    _add_quiet(p, argparse.SUPPRESS)
    p.set_defaults(func=cmd_fit)

    p = sub.add_parser("predict", formatter_class=fmt, help="apply a saved classifier to a file",
                       description="Apply a model of pu-lib fit to a file with the model's feature columns (other "
                                   "columns are ignored): one row per input row, columns prediction (0/1) and "
                                   "proba (column 1 of predict_proba; docs/probabilities.md says what it is for "
                                   "each method).")
    p.add_argument("model", metavar="MODEL", help="model file of pu-lib fit")
    p.add_argument("file", metavar="FILE", help="CSV or Parquet file")
    p.add_argument("--out", required=True, metavar="FILE", help="output file, .csv or .parquet")
    _add_quiet(p, argparse.SUPPRESS)
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser("select", formatter_class=fmt, help="compare methods by cross-validated PU scorers",
                       description="Cross-validated PU scorers (pu_lib.model_selection: they need only the file's "
                                   "s column, and the class prior for some) for several methods, as a table. "
                                   "Default scorers: those that need no prior, and all of them with --prior.",
                       epilog=_methods_epilog(scorers=True))
    _add_input(p)
    p.add_argument("--methods", required=True, metavar="A,B,C", help="registered classifiers, comma-separated")
    p.add_argument("--scoring", metavar="NAME[,NAME]", help="scorers, comma-separated")
    p.add_argument("--cv", type=_at_least_two, default=5, metavar="K", help="folds (default 5)")
    p.add_argument("--prior", metavar="P", help="class prior for the scorers that need it, a number or a "
                   "class-prior estimator fitted on the whole file; methods that take prior= get it too "
                   "(the estimator's name: estimated inside each fit) unless --param sets it")
    p.add_argument("--scenario", choices=("single_training_set", "case_control"), default="single_training_set",
                   help="how the labeled rows were drawn (default %(default)s; docs/model_selection.md)")
    _add_method_options(p, multi=True)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    _add_common(p)
    _add_quiet(p, argparse.SUPPRESS)
    p.set_defaults(func=cmd_select)

    p = sub.add_parser("run", formatter_class=fmt, help="run the workflow on a config",
                       description="Run the Snakemake workflow of this checkout on CONFIG (the whole config: "
                                   "user_datasets, methods, experiments, targets; docs/own_data.md) in the "
                                   "current directory, which gets results/. Every option after CONFIG goes to "
                                   "Snakemake as it is (e.g. -n, --cores 2, a target name); without a cores, "
                                   "jobs, profile or executor option Snakemake gets --cores 1.\n\n"
                                   "Ctrl-C, SIGTERM and SIGHUP stop Snakemake and its jobs too (exit status "
                                   "128 + the signal's number). After a run killed without cleaning up, the "
                                   "same command resumes it: when no Snakemake runs in the directory, its "
                                   "stale lock is removed and --rerun-incomplete passed; when one runs, the "
                                   "command stops, naming its pid (docs/cli.md).")
    p.add_argument("--snakefile", metavar="PATH", help="Snakefile (default: the repository checkout's)")
    p.add_argument("config", metavar="CONFIG", help="workflow config (YAML)")
    p.add_argument("snakemake_args", nargs=argparse.REMAINDER, metavar="...", help="options for Snakemake")
    _add_quiet(p, argparse.SUPPRESS)
    p.set_defaults(func=cmd_run)
    return parser


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("pu_lib")
    except Exception:  # noqa: BLE001 - not installed: no version to show
        return "unknown"


def _nonnegative_int(text: str) -> int:
    v = int(text)
    if v < 0 or v == 1:
        raise argparse.ArgumentTypeError(f"must be 0 or at least 2, got {text}")
    return v


def _at_least_two(text: str) -> int:
    v = int(text)
    if v < 2:
        raise argparse.ArgumentTypeError(f"must be at least 2, got {text}")
    return v


def main(argv=None) -> int:
    """Run ``pu-lib`` with ``argv`` (default ``sys.argv[1:]``); the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    _Messages.quiet = args.quiet
    formatwarning, warnings.formatwarning = warnings.formatwarning, _format_warning
    try:
        return args.func(args)
    except UserError as exc:
        print(f"{PROG} {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except (ValueError, OSError, ImportError) as exc:  # from the library: bad values, files, a missing extra
        print(f"{PROG} {args.command}: error: {_one_line(exc)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG} {args.command}: interrupted", file=sys.stderr)
        return 130
    finally:
        warnings.formatwarning = formatwarning


if __name__ == "__main__":
    sys.exit(main())
