"""Workflow configuration: JSON-schema validation with defaults, semantic checks,
and the derived grid (experiments x datasets x label settings x methods).

Every error is a :class:`ConfigError` (a ``ValueError``) whose message starts with the
YAML path of the offending field, e.g. ``experiments.quick.settings[0].c``.
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from pu_lib._optional import require

SYNTHETIC_SEED_NOTE = (
    "synthetic datasets are generated with seed = repetition index (the PULSNAR paper uses seeds 0-39)"
)


class ConfigError(ValueError):
    """Invalid workflow configuration; the message names the YAML path of the field."""


#: the label setting of a user dataset that is PU already (``user_datasets.*.s_column``):
#: its labels are the file's, none are drawn
GIVEN = "given"
#: the metrics that need no true class (an experiment on data that is PU already reports
#: only these, besides the prior estimates of a class-prior experiment): Lee & Liu's
#: criterion, the training PU risk and the timings
PU_ONLY_METRICS = ("lee_liu", "train_pu_risk_01", "fit_seconds", "ms_per_example", "pu_auc", "pu_auc_corrected",
                   "pu_f1", "pu_accuracy", "nnpu_risk")

_USER_SPECS: dict = {}


def user_specs(config: dict, root=None) -> dict:
    """``{name: spec}`` of the config's ``user_datasets``
    (:func:`pu_lib.datasets.user.user_dataset_spec`, each holding its file's SHA-256),
    files read relative to ``root`` (default: the working directory). Memoised per file
    state (path, size, modification time), so the hash is computed once per process.
    :class:`ConfigError` naming the entry's field."""
    import re

    from pu_lib.datasets.user import user_dataset_spec

    out = {}
    root = Path(root) if root is not None else Path.cwd()
    for name, entry in (config.get("user_datasets") or {}).items():
        f = Path(str(entry.get("file", ""))).expanduser()
        f = f if f.is_absolute() else root / f
        try:
            st = f.stat()
            state = (st.st_size, st.st_mtime_ns)
        except OSError:
            state = None
        key = (name, json.dumps(entry, sort_keys=True, default=str), str(f), state)
        if key not in _USER_SPECS or state is None:
            try:
                _USER_SPECS[key] = user_dataset_spec(name, entry, root)
            except ValueError as exc:
                msg = str(exc)
                sep = "." if re.match(r"^[a-z_]+: ", msg) else ": "
                raise ConfigError(f"user_datasets.{name}{sep}{msg}") from None
        out[name] = _USER_SPECS[key]
    return out


def _fmt_path(parts) -> str:
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += ("." if out else "") + str(p)
    return out or "<root>"


def _load_schema(schema) -> dict:
    if isinstance(schema, dict):
        return schema
    yaml = require("yaml", purpose="reading the workflow config schema")

    with open(schema, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def _fill_defaults(instance, schema):
    """Fill ``default`` values of object properties, recursively, in place."""
    if not isinstance(schema, dict):
        return
    if isinstance(instance, dict):
        for key, sub in schema.get("properties", {}).items():
            if key not in instance and isinstance(sub, dict) and "default" in sub:
                instance[key] = copy.deepcopy(sub["default"])
            if key in instance:
                _fill_defaults(instance[key], sub)
        addl = schema.get("additionalProperties")
        if isinstance(addl, dict):
            for key, val in instance.items():
                if key not in schema.get("properties", {}):
                    _fill_defaults(val, addl)
    elif isinstance(instance, list) and isinstance(schema.get("items"), dict):
        for item in instance:
            _fill_defaults(item, schema["items"])
    for alt in schema.get("oneOf", []):
        if isinstance(alt, dict) and alt.get("type") == "object" and isinstance(instance, dict):
            _fill_defaults(instance, alt)


def with_registry_names(schema: dict) -> dict:
    """A copy of the config schema whose ``methods.*.method`` allows exactly the names of
    :mod:`pu_lib.workflow.registry` and whose ``experiments.*.metrics`` allow exactly those of
    :data:`pu_lib.metrics.METRICS` (the schema file lists neither: the registry and the
    metric table are the one place each is defined)."""
    from pu_lib.workflow import registry
    from pu_lib.metrics import METRICS

    schema = copy.deepcopy(schema)
    method = schema["properties"]["methods"]["additionalProperties"]["properties"]["method"]
    method["enum"] = registry.names()
    metrics = schema["properties"]["experiments"]["additionalProperties"]["properties"]["metrics"]
    metrics["items"] = {**metrics["items"], "enum": list(METRICS)}
    return schema


def validate_config(config: dict, schema) -> dict:
    """Validate ``config`` against ``schema`` (path or dict), fill defaults and run the
    semantic checks. Returns a new, completed config dict; raises :class:`ConfigError`."""
    jsonschema = require("jsonschema", purpose="validating a workflow config")

    schema = with_registry_names(_load_schema(schema))
    config = copy.deepcopy(dict(config))
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        lines = []
        for err in errors:
            # descend into oneOf failures to report the most specific message
            best = jsonschema.exceptions.best_match([err])
            lines.append(f"{_fmt_path(best.absolute_path)}: {best.message}")
        raise ConfigError("invalid config:\n  " + "\n  ".join(dict.fromkeys(lines)))
    _fill_defaults(config, schema)
    _semantic_checks(config)
    _check_targets(config)
    return config


def _semantic_checks(config: dict) -> None:
    from pu_lib.datasets import get_spec, list_datasets
    from pu_lib.labeling import validate_mechanism_params
    from pu_lib.workflow.experiments.methods import check_method_spec

    known = set(list_datasets())
    users = user_specs(config)
    for name in users:
        if name in known:
            raise ConfigError(f"user_datasets.{name}: the name of a registered dataset; choose another name")
    known |= set(users)

    def spec_of(name):
        return users[name] if name in users else get_spec(name)

    for mname, mspec in config["methods"].items():
        if "prior" in (mspec.get("params") or {}):
            why = _prior_param_problem(mspec["params"]["prior"])
            if why:
                raise ConfigError(f"methods.{mname}.params.prior: {why}")
        try:
            check_method_spec(mspec)
        except ValueError as exc:
            raise ConfigError(f"methods.{mname}.{exc}") from None
    for ename, exp in config["experiments"].items():
        base = f"experiments.{ename}"
        ids = set()
        for i, d in enumerate(exp["datasets"]):
            entry = normalise_dataset_entry(d)
            if entry["name"] not in known:
                import difflib

                close = difflib.get_close_matches(entry["name"], sorted(known), n=3)
                hint = f" (did you mean {', '.join(close)}?)" if close else ""
                raise ConfigError(f"{base}.datasets[{i}]: unknown dataset {entry['name']!r}{hint}")
            spec = spec_of(entry["name"])
            positives = spec.get("positive", {})
            if spec.get("kind") == "user":
                _check_user_entry(spec, f"{base}.datasets[{i}]", d)
            elif spec.get("kind") != "synthetic" and entry["positive"] not in positives:
                raise ConfigError(
                    f"{base}.datasets[{i}].positive: dataset {entry['name']!r} has no positive-class "
                    f"definition {entry['positive']!r}; known: {sorted(positives)}"
                )
            if entry["params"] and spec.get("kind") != "synthetic":
                raise ConfigError(
                    f"{base}.datasets[{i}].params: only synthetic datasets take params, "
                    f"{entry['name']!r} is {spec.get('kind')!r}"
                )
            if entry["params"]:
                frac = entry["params"].get("frac")
                if frac is not None and not (0 <= float(frac) < 1):
                    raise ConfigError(f"{base}.datasets[{i}].params.frac: must lie in [0, 1), got {frac}")
            if entry["id"] in ids:
                raise ConfigError(f"{base}.datasets[{i}]: duplicate dataset id {entry['id']!r}")
            ids.add(entry["id"])
        sids = set()
        for i, st in enumerate(exp["settings"]):
            params = {k: v for k, v in st.items() if k not in ("mechanism", "id")}
            if st["mechanism"] == GIVEN:
                if params:
                    raise ConfigError(f"{base}.settings[{i}]: mechanism given takes no parameters, got {sorted(params)}")
                sids.add(setting_id(st))
                continue
            try:
                validate_mechanism_params(st["mechanism"], params)
            except ValueError as exc:
                raise ConfigError(f"{base}.settings[{i}]: {exc}") from None
            sid = setting_id(st)
            if sid in sids:
                raise ConfigError(f"{base}.settings[{i}]: duplicate setting id {sid!r}")
            sids.add(sid)
        for i, m in enumerate(exp["methods"]):
            if m not in config["methods"]:
                raise ConfigError(
                    f"{base}.methods[{i}]: unknown method {m!r}; define it under 'methods' "
                    f"(defined: {sorted(config['methods'])})"
                )
        _check_prior_experiment(config, base, exp)
        _check_given_labels(config, base, exp, users)
        _check_selection(config, base, exp)
        _check_sweeps(config, base, exp)
        rep = exp["report"]
        if rep["control"] != "best" and rep["control"] not in exp["methods"]:
            raise ConfigError(
                f"{base}.report.control: {rep['control']!r} is not a method of the experiment "
                f"({exp['methods']}) nor 'best'"
            )
        if rep["groupings"] != "auto":
            for g in rep["groupings"]:
                why = grouping_infeasible(g, len(ids), len(sids), len(exp["methods"]))
                if why:
                    raise ConfigError(f"{base}.report.groupings: {g!r} is impossible here: {why}")
        split = exp["split"]
        if split.get("refit") and not split["val_size"] > 0:
            raise ConfigError(
                f"{base}.split.refit: tuning a threshold before the refit needs a validation part; "
                "set split.val_size > 0 (the PU Hellinger trees protocol: 0.5)"
            )
        if split.get("predefined") is True:
            for i, d in enumerate(exp["datasets"]):
                entry = normalise_dataset_entry(d)
                if "split" not in (spec_of(entry["name"]).get("meta_columns") or []):
                    with_split = sorted(n for n in known if "split" in (spec_of(n).get("meta_columns") or []))
                    raise ConfigError(
                        f"{base}.split.predefined: dataset {entry['name']!r} (datasets[{i}]) has no predefined "
                        f"train/test split (no 'split' meta column); datasets with one: {', '.join(with_split)}"
                    )
        else:
            if split["evaluate_on"] == "test" and split["test_size"] == 0:
                raise ConfigError(f"{base}.split.test_size: is 0 but evaluate_on is 'test'; use evaluate_on: unlabeled")
            if split["test_size"] + split["val_size"] >= 1:
                raise ConfigError(f"{base}.split.val_size: test_size + val_size must be < 1")


def _check_user_entry(spec: dict, path: str, raw) -> None:
    """An experiment's entry of a user dataset: one positive definition (its
    ``positive_value``), no generator params; no ``extend`` for data that is PU already
    (the class-correlated attributes need the true classes); no ``missing`` (the
    ``user_datasets`` entry's missing-value policy applies when its file is read)."""
    raw = raw if isinstance(raw, dict) else {"name": raw}
    if raw.get("positive", "default") != "default":
        raise ConfigError(f"{path}.positive: a user dataset has one positive class, its user_datasets "
                          f"positive_value; leave positive out (got {raw['positive']!r})")
    if raw.get("optional"):
        raise ConfigError(f"{path}.optional: applies to registered datasets only (a user dataset is a file)")
    if raw.get("missing") is not None:
        raise ConfigError(f"{path}.missing: a user dataset's missing values follow its user_datasets entry's "
                          f"missing (refuse, drop or impute); set user_datasets.{spec['name']}.missing instead")
    if spec.get("s_column") and raw.get("extend") is not None:
        raise ConfigError(f"{path}.extend: needs the true classes, which {spec['name']!r} (s_column, data that "
                          "is PU already) does not have")


def _check_given_labels(config: dict, base: str, exp: dict, users: dict) -> None:
    """An experiment on user data that is PU already (``s_column``): all its datasets are
    such data, its one setting is ``{mechanism: given}`` (and ``given`` is for such data
    only), its metrics need no true class (:data:`PU_ONLY_METRICS`), and nothing it asks
    for needs the true classes (``prior: true`` / ``label_frequency: true`` parameters,
    threshold tuning with refit, staged metrics, the PULSNAR calibration and
    classification evaluation)."""
    names = [normalise_dataset_entry(d)["name"] for d in exp["datasets"]]
    pu = [n for n in names if n in users and users[n].get("s_column")]
    given = [i for i, s in enumerate(exp["settings"]) if s["mechanism"] == GIVEN]
    if not pu:
        if given:
            raise ConfigError(f"{base}.settings[{given[0]}]: mechanism given is for user datasets with an "
                              "s_column (data that is PU already); this experiment has none")
        return
    other = [n for n in names if n not in pu]
    if other:
        raise ConfigError(f"{base}.datasets: mixes data that is PU already ({', '.join(pu)}: s_column) with "
                          f"data whose labels are drawn ({', '.join(other)}); put them in separate experiments")
    if len(exp["settings"]) != 1 or not given:
        raise ConfigError(f"{base}.settings: data that is PU already ({', '.join(pu)}) keeps the file's labels: "
                          "the settings must be exactly [{mechanism: given}]")
    for j, m in enumerate(exp["metrics"]):
        if m not in PU_ONLY_METRICS:
            raise ConfigError(f"{base}.metrics[{j}]: {m!r} needs the true classes, which data that is PU already "
                              f"({', '.join(pu)}) does not have; metrics without them: {', '.join(PU_ONLY_METRICS)}"
                              " (and the prior estimates of a class-prior experiment)")
    why = {"split.refit": bool(exp["split"].get("refit")), "staged_metrics": bool(exp.get("staged_metrics")),
           "prior_evaluation.calibration": bool((exp.get("prior_evaluation") or {}).get("calibration")),
           "prior_evaluation.classification": bool((exp.get("prior_evaluation") or {}).get("classification"))}
    for field, bad in why.items():
        if bad:
            raise ConfigError(f"{base}.{field}: needs the true classes, which data that is PU already "
                              f"({', '.join(pu)}) does not have")
    # a classifier's metrics on such data are PU estimates on the test part (the held-out
    # rows, stratified on s); on the training rows a method that memorises its labels wins
    from pu_lib.workflow.experiments.methods import is_prior_method

    split = exp["split"]
    classifiers = not all(is_prior_method(config["methods"][m]["method"]) for m in exp["methods"])
    if classifiers and split.get("predefined") is not True and (split["evaluate_on"] != "test"
                                                                or not split["test_size"] > 0):
        raise ConfigError(f"{base}.split: data that is PU already ({', '.join(pu)}) is scored on held-out rows, "
                          f"the test part, and this split has none (evaluate_on: {split['evaluate_on']}, test_size: "
                          f"{split['test_size']:g}): the scores would be those of the training rows; use "
                          "evaluate_on: test (the default) with test_size > 0 (the default 0.3)")
    for m in exp["methods"]:
        params = config["methods"][m].get("params") or {}
        for key in ("prior", "label_frequency"):
            v = params.get(key)
            if v is True or (isinstance(v, str) and v.strip().lower() == "true"):
                raise ConfigError(f"methods.{m}.params.{key}: true (the true value) is unknown for data that is "
                                  f"PU already ({', '.join(pu)}, experiment {base.split('.', 1)[1]}); give a "
                                  "number or a prior estimator")


def _check_selection(config: dict, base: str, exp: dict) -> None:
    """A method with ``select`` (parameters chosen on PU folds of the training rows; each
    spec's own block is checked by :func:`pu_lib.workflow.experiments.methods.check_select_spec`)
    is not run under ``split.refit``: that protocol fits a model on the training part and
    refits a clone on training + validation rows, and the choice would have to be made
    twice on different rows."""
    if not exp["split"].get("refit"):
        return
    for j, m in enumerate(exp["methods"]):
        if config["methods"][m].get("select"):
            raise ConfigError(f"methods.{m}.select: not with {base}.split.refit (threshold tuning with refit; "
                              f"{base}.methods[{j}]); give the method a fixed setting there or use an experiment "
                              "without refit")


def _check_prior_experiment(config: dict, base: str, exp: dict) -> None:
    """An experiment is either classification (every method a classifier) or class-prior
    estimation (every method a prior estimator of :mod:`pu_lib.prior`, metrics from
    :data:`pu_lib.metrics.PRIOR_METRICS`)."""
    from pu_lib.workflow.experiments.methods import is_prior_method
    from pu_lib.metrics import PRIOR_METRICS

    kinds = {m: is_prior_method(config["methods"][m]["method"]) for m in exp["methods"]}
    priors = [m for m, k in kinds.items() if k]
    pe = exp.get("prior_evaluation") or {}
    if pe.get("bootstrap") and not priors:
        raise ConfigError(f"{base}.prior_evaluation.bootstrap: applies to experiments of prior estimators only")
    for j, m in enumerate(pe.get("bootstrap_methods") or []):
        if m not in exp["methods"]:
            raise ConfigError(f"{base}.prior_evaluation.bootstrap_methods[{j}]: {m!r} is not a method of this "
                              f"experiment ({', '.join(exp['methods'])})")
    if not priors:
        return
    others = [m for m, k in kinds.items() if not k]
    if others:
        raise ConfigError(
            f"{base}.methods: mixes prior estimators {priors} and classifiers {others}; put them in "
            "separate experiments (prior estimators are scored by their estimates only)"
        )
    if exp["split"].get("refit"):
        raise ConfigError(f"{base}.split.refit: applies to classifiers only (this experiment estimates priors)")
    for j, m in enumerate(exp["metrics"]):
        if m not in PRIOR_METRICS:
            raise ConfigError(
                f"{base}.metrics[{j}]: {m!r} is not a class-prior metric; an experiment of prior "
                f"estimators reports {', '.join(PRIOR_METRICS)}"
            )


def _check_sweeps(config: dict, base: str, exp: dict) -> None:
    """``report.sweeps`` (rule ``sweep``): names, x, metrics, series and panel of each sweep
    against the experiment's methods and settings (:func:`pu_lib.workflow.experiments.sweep.check_sweep`)."""
    sweeps = exp["report"].get("sweeps")
    if not sweeps:
        return
    from pu_lib.workflow.experiments.sweep import check_sweep

    methods = {m: config["methods"][m] for m in exp["methods"]}
    settings = [(s["mechanism"], {k: v for k, v in s.items() if k not in ("mechanism", "id")})
                for s in exp["settings"]]
    for name, spec in sweeps.items():
        try:
            check_sweep(spec, name=name, methods=methods, settings=settings, path=f"{base}.report.sweeps")
        except ValueError as exc:
            raise ConfigError(str(exc)) from None


def is_prior_experiment(config: dict, experiment: str) -> bool:
    """True when every method of ``experiment`` is a class-prior estimator."""
    from pu_lib.workflow.experiments.methods import is_prior_method

    methods = config["experiments"][experiment]["methods"]
    return bool(methods) and all(is_prior_method(config["methods"][m]["method"]) for m in methods)


def _prior_param_problem(value) -> str:
    """Why a method's ``params.prior`` is invalid ("" if fine): ``true`` / ``"true"`` (the
    true class prior, substituted per repetition), null, a number in (0, 1), or the name
    of a registered class-prior estimator (estimated on the training rows)."""
    from pu_lib.workflow import registry

    priors = registry.names("prior")
    if value is None or value is True or (isinstance(value, str) and value.strip().lower() == "true"):
        return ""
    if isinstance(value, str) and value in priors:
        return ""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return (f"must be true (the true class prior), null, a number in (0, 1) or the name of a prior "
                f"estimator ({', '.join(priors)}), got {value!r}")
    if not 0 < float(value) < 1:
        return f"must lie in (0, 1), got {value!r}"
    return ""


def _check_targets(config: dict) -> None:
    for name, t in (config.get("targets") or {}).items():
        for i, e in enumerate(t.get("experiments", [])):
            if e not in config["experiments"]:
                raise ConfigError(f"targets.{name}.experiments[{i}]: unknown experiment {e!r}; "
                                  f"known: {sorted(config['experiments'])}")
            for j, m in enumerate(t.get("metrics") or []):
                if m not in config["experiments"][e]["metrics"]:
                    raise ConfigError(f"targets.{name}.metrics[{j}]: {m!r} is not a metric of experiment {e!r}")
        known = {s for e in t.get("experiments", []) if e in config["experiments"]
                 for s in ((config["experiments"][e].get("report") or {}).get("sweeps") or {})}
        for j, s in enumerate(t.get("sweeps") or []):
            if s not in known:
                raise ConfigError(f"targets.{name}.sweeps[{j}]: {s!r} is not a sweep (report.sweeps) of the "
                                  f"target's experiments; known: {sorted(known)}")
        if t.get("importance_maps") and not config.get("importance_maps"):
            raise ConfigError(f"targets.{name}.importance_maps: needs a top-level importance_maps block")
    _check_scorecards(config)
    im = config.get("importance_maps")
    if im:
        from pu_lib.datasets import get_spec, list_datasets

        if im["dataset"] not in list_datasets():
            raise ConfigError(f"importance_maps.dataset: unknown dataset {im['dataset']!r}")
        if get_spec(im["dataset"]).get("n_features") != 784:
            raise ConfigError(f"importance_maps.dataset: {im['dataset']!r} is not 28 x 28 images (784 features)")


def _check_scorecards(config: dict) -> None:
    """A scorecard names a target, and its claims name methods the config defines;
    ``scorecard_reduced`` names experiments."""
    targets = config.get("targets") or {}
    for name, card in (config.get("scorecards") or {}).items():
        if name not in targets:
            raise ConfigError(f"scorecards.{name}: not a target; known targets: {sorted(targets)}")
        # a claim may name a method that an overlay leaves out of the experiments (its
        # verdict is then "not tested"), not one that the config does not define
        from pu_lib.workflow.registry import names

        methods = set(config.get("methods") or {}) | set(names())
        for i, claim in enumerate(card.get("claims") or []):
            for m in [claim["better"], *claim["than"]]:
                if m not in methods:
                    raise ConfigError(f"scorecards.{name}.claims[{i}]: unknown method {m!r} (neither in the "
                                      f"config's methods nor registered)")
    for exp in config.get("scorecard_reduced") or {}:
        if exp not in config["experiments"]:
            raise ConfigError(f"scorecard_reduced.{exp}: unknown experiment; known: {sorted(config['experiments'])}")


def grouping_infeasible(grouping: str, n_datasets: int, n_settings: int, n_methods: int) -> str:
    """Why a summary grouping cannot be tested (empty string if it can): the Friedman test
    needs at least 2 methods and 2 blocks."""
    if n_methods < 2:
        return f"a comparison needs at least 2 methods, the experiment has {n_methods}"
    if grouping == "setting" and n_datasets < 2:
        return f"blocks are data sets and the experiment has {n_datasets}"
    if grouping == "all" and n_datasets * n_settings < 2:
        return "blocks are (data set, setting) pairs and the experiment has 1"
    return ""


def _slug_value(v) -> str:
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, dict):
        return "+".join(f"{k}{_slug_value(x)}" for k, x in sorted(v.items()))
    return str(v)


def setting_id(setting: dict) -> str:
    """File-safe identifier of a label setting: its ``id`` or ``mechanism-param<value>...``."""
    if setting.get("id"):
        return setting["id"]
    params = {k: v for k, v in setting.items() if k not in ("mechanism", "id")}
    parts = [setting["mechanism"]] + [f"{k}{_slug_value(v)}" for k, v in sorted(params.items())]
    return "-".join(parts)


#: defaults inside a dataset entry's ``extend`` block (Bekker's extended datasets)
EXTEND_DEFAULTS = {"n_correlated": 5, "n_noise": 5, "flip": 0.3}


def _extend_slug(extend: dict) -> str:
    """``ext5c5n`` (flip 0.3), ``ext5c5nf0p1`` (flip 0.1): no dots in dataset ids."""
    slug = f"ext{extend['n_correlated']}c{extend['n_noise']}n"
    if float(extend["flip"]) != EXTEND_DEFAULTS["flip"]:
        slug += "f" + repr(float(extend["flip"])).replace(".", "p").replace("-", "m")
    return slug


def normalise_dataset_entry(entry) -> dict:
    """Turn a dataset entry (a name or a mapping) into ``{name, id, params, positive}``,
    plus ``scale``, ``extend`` (with :data:`EXTEND_DEFAULTS` filled in) and ``missing``
    when the entry has them -- absent keys stay absent so that other entries keep their
    specs.

    The automatic id is
    ``name[-<params>][-pos_<positive>][-scaled][-ext<c>c<n>n[f<flip>]][-na_<missing>]``
    (``f<flip>`` only for a flip other than 0.3, its dot written ``p``; ``-na_zero`` for
    ``missing: zero``, nothing for the default ``drop``); an explicit ``id`` is kept as
    given."""
    if isinstance(entry, str):
        entry = {"name": entry}
    out = {"name": entry["name"], "params": dict(entry.get("params") or {}), "positive": entry.get("positive", "default")}
    if entry.get("scale") is not None:
        out["scale"] = entry["scale"]
    if entry.get("extend") is not None:
        out["extend"] = {**EXTEND_DEFAULTS, **entry["extend"]}
    if entry.get("missing") is not None:
        out["missing"] = entry["missing"]
    if entry.get("id"):
        out["id"] = entry["id"]
    elif out["params"]:
        out["id"] = out["name"] + "-" + "-".join(f"{k}{_slug_value(v)}" for k, v in sorted(out["params"].items()))
    else:
        out["id"] = out["name"]
    if not entry.get("id"):
        if out["positive"] != "default":
            out["id"] += f"-pos_{out['positive']}"
        if "scale" in out:
            out["id"] += "-scaled" if out["scale"] == "minus1_1" else f"-scale_{out['scale']}"
        if "extend" in out:
            out["id"] += "-" + _extend_slug(out["extend"])
        if out.get("missing", "drop") != "drop":
            out["id"] += f"-na_{out['missing']}"
    return out


def stable_hash(obj, length: int = 16) -> str:
    """sha256 of the canonical JSON of ``obj`` (sorted keys), first ``length`` hex digits."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


@dataclass(frozen=True)
class Cell:
    """One Snakemake job: experiment x dataset x label setting x method."""

    experiment: str
    dataset: str  # dataset id
    setting: str  # setting id
    method: str


_NOT_HASHED = ("report", "description", "paper", "paper_table")
#: experiment fields that select cells or tables (the cell's own dataset entry and setting
#: are fit parameters of their own) and so are left out of the per-method hash
_NOT_IN_METHOD_HASH = _NOT_HASHED + ("datasets", "settings", "methods", "metrics")


def _split_spec(split: dict) -> dict:
    """The split block as hashed and passed to the rules: ``predefined: false`` (the
    default, added after the other keys) is left out so that configs that do not use it
    keep their config hashes and Snakemake params; so are ``refit: false`` and
    ``threshold_rule: midpoint``."""
    return {k: v for k, v in split.items()
            if not ((k in ("predefined", "refit") and v is False) or (k == "threshold_rule" and v == "midpoint"))}


def _is_optional(raw_entry) -> bool:
    return isinstance(raw_entry, dict) and raw_entry.get("optional") is True


class Grid:
    """The experiment grid derived from a validated config.

    Offline (``download: false``), a dataset entry with ``optional: true`` that is
    neither built in, nor in ``data_mirror``, nor already prepared (``results/data/
    <name>.parquet`` under ``workdir`` or ``cache_dir/canonical/<name>.parquet``), nor
    has its raw files in ``cache_dir/raw/<name>/`` is dropped from its experiment; an
    experiment left without datasets is dropped too.
    :attr:`skipped` lists them and :meth:`skip_messages` gives one warning line each.
    """

    def __init__(self, config: dict, workdir=None):
        from pu_lib.datasets import offline_unavailable_reason

        self.config = config
        self.experiments = {}
        self.skipped: list[dict] = []
        root = Path(workdir) if workdir is not None else Path.cwd()
        offline = not config.get("download", False)
        #: ``{name: spec}`` of the config's user datasets (:func:`user_specs`)
        self.user_specs = user_specs(config, root)
        for ename, exp in config["experiments"].items():
            datasets = {}
            for raw in exp["datasets"]:
                d = normalise_dataset_entry(raw)
                if d["name"] in self.user_specs:
                    # the spec (file, columns, SHA-256) goes into the label and fit parameters
                    d["user"] = self.user_specs[d["name"]]
                elif offline and _is_optional(raw):
                    cache_dir = config.get("cache_dir")
                    reason = offline_unavailable_reason(
                        d["name"],
                        data_mirror=_under(root, config.get("data_mirror")),
                        cache_dir=_under(root, cache_dir) if cache_dir else None,
                        prepared=(root / "results" / "data" / f"{d['name']}.parquet",),
                    )
                    if reason:
                        self.skipped.append({"experiment": ename, "dataset": d["id"], "name": d["name"],
                                             "reason": reason})
                        continue
                datasets[d["id"]] = d
            if not datasets:
                self.skipped.append({"experiment": ename, "dataset": None, "name": None,
                                     "reason": "none of its datasets is available offline"})
                continue
            settings = {setting_id(s): s for s in exp["settings"]}
            self.experiments[ename] = {"exp": exp, "datasets": datasets, "settings": settings}
        self.mirror_warnings: list[str] = []
        self._check_data_mirror(root, offline)

    def _check_data_mirror(self, root: Path, offline: bool) -> None:
        """A ``data_mirror`` directory that does not exist, while a dataset of the grid
        (or of ``importance_maps``) needs it -- its registry entry has a mirror file and it
        is neither built in nor prepared (``results/data/<name>.parquet``,
        ``cache_dir/canonical/<name>.parquet``) -- is a :class:`ConfigError` offline and a
        warning line (:meth:`skip_messages`) with ``download: true``, before any job."""
        from pu_lib.datasets import get_spec, offline_unavailable_reason

        raw = self.config.get("data_mirror")
        if raw is None:
            return
        mirror = _under(root, raw)
        if mirror.is_dir():
            return
        users: dict[str, list[str]] = {}
        for ename, e in self.experiments.items():
            for d in e["datasets"].values():
                users.setdefault(d["name"], []).append(f"experiments.{ename}")
        im = self.config.get("importance_maps")
        if im:
            users.setdefault(im["dataset"], []).append("importance_maps")
        cache_dir = _under(root, self.config.get("cache_dir")) if self.config.get("cache_dir") else None
        need = []
        for name, where in users.items():
            if name in self.user_specs or not get_spec(name).get("mirror_file"):
                continue
            if offline_unavailable_reason(name, data_mirror=mirror, cache_dir=cache_dir,
                                          prepared=(root / "results" / "data" / f"{name}.parquet",)):
                need.append(f"{name} ({', '.join(sorted(set(where)))})")
        if not need:
            return
        shown = repr(str(raw)) + ("" if Path(str(raw)).is_absolute() else f" (= {mirror})")
        what = f"data_mirror: the directory {shown} does not exist"
        if offline:
            raise ConfigError(
                f"{what}, and dataset(s) {', '.join(need)} need it: they are neither built in nor prepared "
                "(results/data/<name>.parquet, <cache_dir>/canonical/<name>.parquet) and download is false. "
                f"A relative data_mirror is read from the working directory ({root}); give the mirror's path "
                "(e.g. --config data_mirror=/path/to/shared/datasets) or set download: true"
            )
        self.mirror_warnings.append(f"{what}; dataset(s) {', '.join(need)} will be downloaded")

    def skip_messages(self) -> list[str]:
        """One warning line per skipped dataset (by name) and per dropped experiment, and
        the missing-mirror warning of :meth:`_check_data_mirror` (with ``download: true``)."""
        out = list(getattr(self, "mirror_warnings", []))
        for sk in self.skipped:
            if sk["name"] is None:
                msg = f"skipped offline: experiment {sk['experiment']} ({sk['reason']})"
            else:  # files downloaded by hand (manual_files): download: true does not fetch them
                from pu_lib.datasets import get_spec

                tail = "" if get_spec(sk["name"]).get("manual_files") else "; set download: true"
                msg = f"skipped offline: {sk['name']} ({sk['reason']}{tail})"
            if msg not in out:
                out.append(msg)
        return out

    def cells(self, experiment: str | None = None):
        for ename, e in self.experiments.items():
            if experiment is not None and ename != experiment:
                continue
            for d in e["datasets"]:
                for s in e["settings"]:
                    for m in e["exp"]["methods"]:
                        yield Cell(ename, d, s, m)

    def file_datasets(self) -> list[str]:
        """Names of datasets that need a canonical Parquet file (non-synthetic)."""
        from pu_lib.datasets import get_spec

        names = set()
        for e in self.experiments.values():
            for d in e["datasets"].values():
                if d["name"] in self.user_specs or get_spec(d["name"]).get("kind") != "synthetic":
                    names.add(d["name"])
        return sorted(names)

    def user_canonical(self, name: str) -> str:
        """The canonical Parquet of user dataset ``name`` (rule ``user_dataset``):
        ``results/data/user/<name>-<first 16 hex digits of the file's SHA-256>.parquet``,
        so that a file with new content is a new job whatever its modification time (with
        reading options other than the defaults, the digits hash the file's SHA-256 and the
        options: :func:`pu_lib.datasets.user.canonical_key`)."""
        from pu_lib.datasets.user import canonical_key

        return f"results/data/user/{name}-{canonical_key(self.user_specs[name])}.parquet"

    def dataset_entry(self, experiment: str, dataset_id: str) -> dict:
        return self.experiments[experiment]["datasets"][dataset_id]

    def setting(self, experiment: str, setting: str) -> dict:
        return self.experiments[experiment]["settings"][setting]

    def label_spec(self, experiment: str, dataset_id: str, setting: str) -> dict:
        """Everything that determines a label set (used as a Snakemake param and for hashing)."""
        e = self.experiments[experiment]
        return {
            "seed": self.config["seed"],
            "experiment": experiment,
            "dataset": e["datasets"][dataset_id],
            "setting": e["settings"][setting],
            "setting_id": setting,
            "split": _split_spec(e["exp"]["split"]),
            "repetitions": e["exp"]["repetitions"],
        }

    def fit_spec(self, cell: Cell) -> dict:
        spec = self.label_spec(cell.experiment, cell.dataset, cell.setting)
        spec["method"] = cell.method
        spec["method_spec"] = self.config["methods"][cell.method]
        spec["config_hash"] = self.method_hash(cell.experiment, cell.method)
        spec["prior_evaluation"] = self.experiments[cell.experiment]["exp"].get("prior_evaluation") or {}
        staged = self.experiments[cell.experiment]["exp"].get("staged_metrics")
        if staged:  # only when asked, so the params of other experiments stay as they were
            spec["staged_metrics"] = list(staged)
        return spec

    def staged_metrics(self, experiment: str) -> list[str]:
        """The experiment's ``staged_metrics`` (per-round curves; rule ``curves``)."""
        return list(self.experiments[experiment]["exp"].get("staged_metrics") or [])

    def method_hash(self, experiment: str, method: str) -> str:
        """The ``config_hash`` of a method's cells (``fit_eval`` params and result rows):
        a hash of the seed, the experiment fields that change a fit (``split``,
        ``repetitions``, ``prior_evaluation``, ``staged_metrics``, ...), the method's name
        (it seeds the fits) and its spec -- not of the other methods, nor of the lists
        that only select cells or tables (``methods``, ``datasets``, ``settings``,
        ``metrics``: result rows hold every metric) or the report fields. So changing one
        method's parameters reruns that method's fits only. With the cell's dataset entry
        and setting, which are fit parameters of their own, it fixes the cell's results."""
        exp = {k: v for k, v in self.experiments[experiment]["exp"].items() if k not in _NOT_IN_METHOD_HASH}
        exp["split"] = _split_spec(exp["split"])
        return stable_hash({"seed": self.config["seed"], "experiment": exp, "method": method,
                            "method_spec": self.config["methods"][method]})

    def fit_code_hash(self, cell: Cell) -> str:
        """The ``code_hash`` parameter of a ``fit_eval`` job: the pu_lib sources its
        method runs (:func:`pu_lib.workflow.experiments.code_hash.fit_code_hash`)."""
        from pu_lib.workflow.experiments.code_hash import fit_code_hash

        exp = self.experiments[cell.experiment]["exp"]
        return fit_code_hash(self.config["methods"][cell.method], method=cell.method,
                             prior_evaluation=exp.get("prior_evaluation"), staged_metrics=exp.get("staged_metrics"))

    def experiment_hash(self, experiment: str) -> str:
        """Hash of everything that defines an experiment's results (seed, experiment
        block, and the specs of the methods it uses): the experiment's provenance in the
        report captions and the stats JSON (rule params of tables and stats). Result rows
        carry the per-method :meth:`method_hash`."""
        # The report block and captions do not change results, so they are not hashed.
        exp = {k: v for k, v in self.experiments[experiment]["exp"].items() if k not in _NOT_HASHED}
        exp["split"] = _split_spec(exp["split"])
        methods = {m: self.config["methods"][m] for m in exp["methods"]}
        return stable_hash({"seed": self.config["seed"], "experiment": exp, "methods": methods})

    def groupings(self, experiment: str) -> list[str]:
        """Summary groupings with significance tests (``report.groupings``; ``auto`` keeps
        those with at least 2 blocks and 2 methods)."""
        e = self.experiments[experiment]
        rep = e["exp"]["report"]
        wanted = ["setting", "all"] if rep["groupings"] == "auto" else list(rep["groupings"])
        return [g for g in wanted if not grouping_infeasible(
            g, len(e["datasets"]), len(e["settings"]), len(e["exp"]["methods"]))]

    def report_options(self, experiment: str) -> dict:
        return dict(self.experiments[experiment]["exp"]["report"])

    def is_prior_experiment(self, experiment: str) -> bool:
        """True when the experiment's methods are class-prior estimators (rule prior_estimates)."""
        return is_prior_experiment(self.config, experiment)

    def prior_evaluation_kinds(self, experiment: str) -> list[str]:
        """The ``prior_evaluation`` outputs of an experiment, of ``calibration`` and
        ``classification``: those it asks for, provided one of its methods is PULSCAR or
        PULSNAR -- only they give the columns (:func:`pu_lib.prior.evaluation.pulsnar_evaluation`),
        so an experiment of other estimators (e.g. a paper config with its methods
        narrowed to the comparators) asks for no calibration figure or classification table."""
        from pu_lib.prior.evaluation import evaluates
        from pu_lib.workflow.registry import method_class

        exp = self.experiments[experiment]["exp"]
        pe = exp.get("prior_evaluation") or {}
        kinds = [kind for kind in ("calibration", "classification") if pe.get(kind)]
        if not kinds or not any(evaluates(method_class(self.config["methods"][m]["method"])) for m in exp["methods"]):
            return []
        return kinds

    def metrics(self, experiment: str) -> list[str]:
        return list(self.experiments[experiment]["exp"]["metrics"])


def _under(root: Path, path):
    """``path`` resolved against ``root`` when relative (None stays None)."""
    if path is None:
        return None
    p = Path(path).expanduser()
    return p if p.is_absolute() else root / p


def load_config(path, schema) -> dict:
    """Read a YAML config file and validate it (see :func:`validate_config`)."""
    yaml = require("yaml", purpose="reading a workflow config (YAML)")

    with open(path, encoding="utf-8") as fh:
        raw = yaml.safe_load(fh) or {}
    return validate_config(raw, schema)


DEFAULT_SCHEMA = Path(__file__).resolve().parents[3] / "workflow" / "schemas" / "config.schema.yaml"
#: the workflow's default config (the Snakefile's ``configfile``)
DEFAULT_CONFIG = Path(__file__).resolve().parents[3] / "config" / "config.yaml"


def merge_config_files(paths, *, defaults=DEFAULT_CONFIG) -> dict:
    """The config Snakemake builds from ``--configfile`` files, before validation: the
    defaults, then each file merged over them in order (mappings key by key, other values,
    lists included, replaced: ``snakemake.utils.update_config``)."""
    yaml = require("yaml", purpose="reading a workflow config (YAML)")
    from snakemake.utils import update_config

    cfg = yaml.safe_load(Path(defaults).read_text(encoding="utf-8")) or {}
    for path in paths:
        update_config(cfg, yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {})
    return cfg
