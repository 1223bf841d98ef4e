"""``pu-lib``: the command line over the package (docs/cli.md).

Subcommands, each a thin layer over the library's own functions:

* ``prior FILE --s COLUMN``: a class-prior estimator of :mod:`pu_lib.registry` fitted on
  the file and its percentile interval (:func:`pu_lib.prior.bootstrap_ci`);
* ``fit FILE --s COLUMN --method NAME --out MODEL``: any registered classifier, built as a
  workflow config builds it (:func:`pu_lib.experiments.methods.make_method`), saved with
  joblib together with the feature columns; ``predict MODEL FILE --out FILE``: its
  predictions and ``predict_proba`` column 1;
* ``select FILE --s COLUMN --methods A,B,C``: cross-validated PU scorers
  (:mod:`pu_lib.model_selection`) for several methods, as a table;
* ``run CONFIG [snakemake options]``: the Snakemake workflow of this checkout on a config
  (Snakemake runs as a subprocess).

Input files are CSV or Parquet (by suffix). They are read and encoded as the workflow reads
a user's table (:mod:`pu_lib.datasets.user`): the ``s`` column must hold 0 and 1 (or
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

from pu_lib import registry

__all__ = ["main"]

PROG = "pu-lib"
#: output table formats of ``predict --out``, by suffix
_TABLE_SUFFIXES = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}
#: the marker of a model file written by ``fit``
_MODEL_FORMAT = "pu_lib.cli model 1"


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


def _encode(features):
    """The canonical feature table of ``features`` (a DataFrame of the user's columns):
    :func:`pu_lib.datasets.canonicalize`, text columns one-hot encoded as for the mirror."""
    from pu_lib.datasets.canonical import TARGET, canonicalize

    if TARGET in features.columns:
        raise UserError(f"a feature column may not be called {TARGET!r} (the canonical class column); rename it")
    canon = canonicalize(features.assign(**{TARGET: 0}), {"meta_columns": [], "encoding": {}})
    return canon.drop(columns=[TARGET])


def _text_values(column) -> set[str]:
    """The values of a text column as the encoding names them (``str`` of each)."""
    return {str(v) for v in column.dropna().unique()}


def _columns_info(path: Path, fmt: str, input_columns: list[str], feature_names: list[str]) -> dict:
    """Which of the user's columns were numeric (kept as they are) and which were text
    (one-hot columns ``<column>=<value>``) with the values seen, so that ``predict``
    encodes a new file alike and names values it never saw."""
    from pu_lib.datasets.user import read_user_table

    numeric = [c for c in input_columns if c in feature_names]
    text = [c for c in input_columns if c not in numeric]
    values = read_user_table(path, fmt, text) if text else None
    return {"input_columns": list(input_columns), "feature_names": list(feature_names), "numeric": numeric,
            "categories": {c: sorted(_text_values(values[c])) for c in text}}


def read_pu_file(path: str, s_column: str):
    """``(X, s, info)`` of a PU file: float32 features, 0/1 ``s`` and the column
    information a model keeps (:func:`_columns_info`). Checks and encoding are the
    workflow's (:func:`pu_lib.datasets.user.user_dataset_spec` with ``s_column``,
    :func:`pu_lib.datasets.user.canonical_user_table`)."""
    from pu_lib.datasets.canonical import TARGET
    from pu_lib.datasets.user import canonical_user_table, file_columns, user_dataset_spec

    p = _input_path(path)
    try:
        spec = user_dataset_spec(p.stem, {"file": str(p), "s_column": s_column})
    except ValueError as exc:  # the workflow's message names the config key: here it is --s
        msg = _one_line(exc).removeprefix("file: ")
        raise UserError(f"{path}: " + (f"--s{msg[len('s_column'):]}" if msg.startswith("s_column:") else msg)) from None
    _say(f"reading {path}")
    table = canonical_user_table(spec)
    s = table[TARGET].to_numpy()
    features = table.drop(columns=[TARGET])

    input_columns = [c for c in file_columns(p, spec["format"]) if c != s_column]
    info = _columns_info(p, spec["format"], input_columns, list(features.columns))
    X = _to_float32(features)
    n_l = int(s.sum())
    _say(f"{len(s)} rows ({n_l} labeled, {len(s) - n_l} unlabeled), {X.shape[1]} features"
         + (f" ({len(info['categories'])} text column(s) one-hot encoded)" if info["categories"] else ""))
    return X, s, info


def read_features_for(model: dict, path: str):
    """The float32 features of ``path`` encoded as the model's training file was: the
    model's columns must all be there (extra columns are ignored); text values the model
    never saw get zeros in that column's one-hot columns (a warning names them)."""
    from pu_lib.datasets.user import USER_FORMATS, read_user_table

    p = _input_path(path)
    fmt = USER_FORMATS[p.suffix.lower()]
    _say(f"reading {path}")
    try:
        df = read_user_table(p, fmt)
    except Exception as exc:  # noqa: BLE001 - any unreadable file gets one clear message
        raise UserError(f"{path}: cannot read it as {fmt}: {_one_line(exc)}") from None
    df.columns = [str(c) for c in df.columns]
    wanted = model["input_columns"]
    missing = [c for c in wanted if c not in df.columns]
    if missing:
        raise UserError(f"{path}: missing column(s) {', '.join(map(repr, missing))} that the model was fitted on "
                        f"(the model's columns: {', '.join(wanted)})")
    enc = _encode(df[wanted])
    for c in model["numeric"]:
        if c not in enc.columns:
            raise UserError(f"{path}: column {c!r} holds text, but it held numbers when the model was fitted")
    for c, seen in model["categories"].items():
        if c in enc.columns and not df[c].isna().all():  # all missing: zeros, as a missing text value
            raise UserError(f"{path}: column {c!r} holds numbers, but it held text when the model was fitted")
        unseen = sorted(_text_values(df[c]) - set(seen))
        if unseen:
            warnings.warn(f"column {c!r}: value(s) {', '.join(map(repr, unseen[:10]))} not seen in fitting; "
                          "those rows get zeros in the column's one-hot features", UserWarning, stacklevel=2)
    X = _to_float32(enc.reindex(columns=model["feature_names"], fill_value=0))
    _say(f"{X.shape[0]} rows, {X.shape[1]} features")
    return X


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
    (:func:`pu_lib.experiments.methods.make_method`: the parameters are checked first)."""
    from pu_lib.experiments.methods import make_method

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

    _check_method(args.method, "prior")
    params = parse_params(args.param)
    est = build_estimator(args.method, "prior", params, args.base, parse_params(args.base_param, "--base-param"),
                          random_state=args.random_state, n_jobs=1)
    X, s, _ = read_pu_file(args.file, args.s)
    result = {"method": args.method, "file": args.file, "n_rows": int(len(s)), "n_labeled": int(s.sum())}
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


# --------------------------------------------------------------------------- fit / predict
def cmd_fit(args) -> int:
    import joblib

    import pu_lib

    _check_method(args.method, "classifier")
    out = _output_path(args.out, None, "model")
    est = build_estimator(args.method, "classifier", parse_params(args.param), args.base,
                          parse_params(args.base_param, "--base-param"), random_state=args.random_state,
                          n_jobs=args.n_jobs)
    X, s, info = read_pu_file(args.file, args.s)
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
    X = read_features_for(model, args.file)
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
    write_table(pd.DataFrame(frame), out)
    print(f"{len(pred)} predictions of {model['method']} written to {args.out}")
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
    """``--prior``: a number, or the name of a prior estimator fitted on the whole file."""
    if prior is None:
        return None, None
    value = _value(prior)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value), value
    if isinstance(value, str) and value in registry.names("prior"):
        from pu_lib.prior import population_prior

        _say(f"estimating the class prior with {value} on all rows")
        est = build_estimator(value, "prior", {}, random_state=random_state).fit(X, s)
        pi = float(population_prior(est, scenario))
        _say(f"class prior {pi:.4f} ({value}, {scenario})")
        return pi, value
    raise UserError(f"--prior {prior!r}: a number in (0, 1) or a prior estimator: {', '.join(registry.names('prior'))}")


def cmd_select(args) -> int:
    import numpy as np
    from sklearn.model_selection import cross_validate

    from pu_lib.model_selection import PRIOR_SCORERS, PU_SCORERS, PUStratifiedKFold, make_pu_scorer

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
    X, s, _ = read_pu_file(args.file, args.s)
    pi, method_prior = _resolve_scoring_prior(args.prior, X, s, args.scenario, args.random_state)
    estimators = {}
    for m in methods:
        params = dict(per_params[m])
        if method_prior is not None and "prior" in registry.parameter_schema(m) and "prior" not in params:
            params["prior"] = method_prior
        base = args.base if registry.get(m).takes_base else None
        estimators[m] = build_estimator(m, "classifier", params, base, base_params if base else None,
                                        random_state=args.random_state, n_jobs=args.n_jobs)
    try:
        scoring = {n: make_pu_scorer(n, prior=pi, scenario=args.scenario) for n in scorers}
    except ValueError as exc:
        raise UserError(f"--prior / --scoring: {_one_line(exc)}") from None
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
        row["fit_seconds"] = float(np.mean(res["fit_time"]))
        table.append(row)
    if args.json:
        print(json.dumps({"file": args.file, "cv": args.cv, "prior": pi, "scenario": args.scenario, "rows": table}))
        return 0
    header = ["method"] + scorers
    rows = [[r["method"]] + [f"{r[n]:.4f} ± {r[f'{n}_sd']:.4f}" for n in scorers] for r in table]
    print(_text_table(header, rows))
    note = f"mean ± sd over {args.cv} folds (PUStratifiedKFold); higher is better in every column"
    if any(n.endswith("_risk") for n in scorers):
        note += " (the risks are negated)"
    if pi is not None:
        note += f"; class prior {pi:.4f}"
    print(note)
    return 0


# --------------------------------------------------------------------------- run
def default_snakefile() -> Path:
    """The Snakefile of the checkout this package is installed from (editable install)."""
    import pu_lib

    return Path(pu_lib.__file__).resolve().parents[1] / "Snakefile"


_CORES_OPTIONS = ("--cores", "-c", "--jobs", "-j", "--profile", "--executor", "-e", "--workflow-profile")


def snakemake_command(config: str, extra: list[str], snakefile: str | None = None) -> list[str]:
    """The Snakemake command line of ``pu-lib run``: this checkout's Snakefile, the user's
    config as the whole config (``--replace-workflow-config``: the repository's
    ``config/config.yaml`` is not merged in), ``--cores 1`` unless the options set cores,
    jobs, a profile or an executor, then ``extra`` as given."""
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
    return cmd + list(extra)


def cmd_run(args) -> int:
    import shlex
    import subprocess

    cmd = snakemake_command(args.config, args.snakemake_args, args.snakefile)
    _say("running " + shlex.join(cmd))
    return subprocess.call(cmd)


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
        from pu_lib.model_selection import PRIOR_SCORERS, PU_SCORERS

        parts.append(_wrapped("scorers (--scoring; * needs --prior)",
                              [n + ("*" if n in PRIOR_SCORERS else "") for n in PU_SCORERS]))
    parts.append("Parameters of a method: docs/methods.md (python -m pu_lib.registry), e.g. --param max_depth=4; "
                 "values are read as JSON (numbers, true, null, [1, 2]) or else as text.")
    return "\n\n".join(parts)


def _add_quiet(p, default=False):
    p.add_argument("-q", "--quiet", action="store_true", default=default,
                   help="no progress messages on standard error")


def _add_input(p):
    """FILE and its --s column (prior, fit, select)."""
    p.add_argument("file", metavar="FILE", help="CSV or Parquet file")
    p.add_argument("--s", required=True, metavar="COLUMN", help="the label column: 1 labeled positive, 0 unlabeled")


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
    p.add_argument("--method", default="pulsnar", metavar="NAME", help="class-prior estimator (default pulsnar)")
    _add_method_options(p)
    import inspect

    from pu_lib.prior.bootstrap import RESAMPLING, bootstrap_ci

    defaults = inspect.signature(bootstrap_ci).parameters
    p.add_argument("--bootstrap", type=_nonnegative_int, default=defaults["n_resamples"].default, metavar="B",
                   help="resamples for the interval (default %(default)s; 0: the estimate only)")
    p.add_argument("--confidence", type=float, default=defaults["confidence"].default,
                   help="level of the interval (default %(default)s)")
    p.add_argument("--resampling", choices=RESAMPLING, default=defaults["resampling"].default,
                   help="half: stratified half-samples without replacement; bootstrap: with replacement "
                        "(default %(default)s; see pu_lib.prior.bootstrap)")
    p.add_argument("--progress-interval", type=float, default=10.0, metavar="SECONDS", help=argparse.SUPPRESS)
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
                                   "jobs, profile or executor option Snakemake gets --cores 1.")
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
