"""The one method registry: config name -> estimator class, kind and parameter schema.

Every public estimator is registered here once. From this table come

* the names a workflow config may use under ``methods: {...: {method: NAME}}`` (the
  config schema's allowed names are filled from :func:`names` when a config is checked);
* the names a PU classifier accepts as ``prior="NAME"`` (the entries of kind ``prior``);
* each method's parameters, defaults and allowed values (:func:`parameter_schema`, read
  from the class's ``__init__`` and scikit-learn ``_parameter_constraints``), used to
  check a config's ``params`` before any job runs and to write ``docs/methods.md``;
* the list of estimators that the test suite runs scikit-learn's checks on.

Adding a method = one :class:`Method` entry in :data:`METHODS` (plus its class).
This module imports no estimator at import time; :func:`method_class` imports on demand.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass, field

from pu_lib._construct import construct
from pu_lib.prior._names import PRIOR_ESTIMATORS

__all__ = ["METHODS", "Method", "make_estimator", "method_class", "names", "parameter_schema", "sparse_methods",
           "sparse_methods_text"]

KINDS = ("classifier", "prior")


@dataclass(frozen=True)
class Method:
    """One registered method.

    ``target``: ``"module:Class"``; ``kind``: ``"classifier"`` (fit / predict / predict_proba)
    or ``"prior"`` (a class-prior estimator: fit sets ``alpha_``, ``prior_``, ``c_``);
    ``takes_base``: the class has an ``estimator`` parameter that a config fills from
    ``base:`` (:mod:`pu_lib.base_learners`); ``paper``: where the method comes from.
    """

    target: str
    kind: str
    summary: str
    paper: str
    takes_base: bool = False
    defaults: dict = field(default_factory=dict)


def _prior_method(name: str, summary: str, paper: str, takes_base: bool = False) -> Method:
    """A class-prior estimator's entry: class and defaults from
    :data:`pu_lib.prior._names.PRIOR_ESTIMATORS` (where ``prior="NAME"`` is resolved)."""
    target, defaults = PRIOR_ESTIMATORS[name]
    return Method(target, "prior", summary, paper, takes_base=takes_base, defaults=dict(defaults))


#: name -> method. Keep the groups in the order of the project's bodies of work.
METHODS: dict[str, Method] = {
    # --- baselines on any scikit-learn classifier
    "naive": Method(
        "pu_lib.baselines:NaivePUClassifier", "classifier",
        "unlabeled rows taken as negatives", "Elkan & Noto 2008; Bekker thesis ch. 5", takes_base=True),
    "elkan_noto": Method(
        "pu_lib.baselines:ElkanNotoClassifier", "classifier",
        "non-traditional classifier rescaled by the label frequency c", "Elkan & Noto 2008", takes_base=True),
    "elkan_noto_pulearn": Method(
        "pu_lib.baselines:ElkanNotoClassifier", "classifier",
        "Elkan & Noto as the PU Hellinger authors ran it: pulearn's weighted probability rule (batch-dependent), "
        "e1 on a 20% stratified hold-out; with base linear_svm and probability: true a linear SVM with Platt scaling",
        "PU Hellinger paper, Table 2 (Elkan-Noto), the authors' expsetup.py and pos_noisyneg/elkannoto.py",
        takes_base=True, defaults={"proba": "pulearn_weighted", "hold_out_ratio": 0.2, "c_estimator": "e1"}),
    "rank_pruning": Method(
        "pu_lib.baselines:RankPruningClassifier", "classifier",
        "Rank Pruning (rho0 = 0): prune the least confident unlabeled rows, refit with 1/(1 - rho1) weights",
        "Northcutt, Wu & Chuang 2017 (UAI), Algorithm 1", takes_base=True),
    "spy_em": Method(
        "pu_lib.baselines:SpyEMClassifier", "classifier",
        "S-EM: spies give reliable negatives, then EM with Gaussian naive Bayes",
        "Liu, Lee, Yu & Li 2002 (ICML)"),
    "pu_bagging": Method(
        "pu_lib.baselines:PUBaggingClassifier", "classifier",
        "PU bagging: every bag = all labeled positives + a bootstrap of K unlabeled rows (default linear SVC, "
        "K = |P|, 100 bags)", "Mordelet & Vert 2014, Algorithm 1", takes_base=True),
    "pu_weighted_lr": Method(
        "pu_lib.baselines:PUWeightedLogisticRegression", "classifier",
        "weighted logistic regression (unlabeled as negative, balanced class weights), C chosen by r^2 / Pr(f(X) = 1)",
        "Lee & Liu 2003 (ICML)"),
    # --- PU Extra Trees (Wilton et al. 2022) and its tree baselines
    "pu_extra_trees": Method(
        "pu_lib.trees:PUExtraTreesClassifier", "classifier",
        "PU Extra Trees (uPU / nnPU risk, quadratic / logistic / savage / sigmoid loss)", "Wilton et al. 2022"),
    "pu_decision_tree": Method(
        "pu_lib.trees:PUDecisionTreeClassifier", "classifier",
        "one PU tree by recursive greedy risk minimisation", "Wilton et al. 2022, Algorithm 2"),
    "pn_extra_trees": Method(
        "pu_lib.trees:PNExtraTreesClassifier", "classifier",
        "Extra-Trees on labeled data (Gini / entropy) on the PU engine", "Wilton et al. 2022 (PN ET)"),
    "pn_decision_tree": Method(
        "pu_lib.trees:PNDecisionTreeClassifier", "classifier",
        "one PN tree (Gini / entropy) on the PU engine", "Wilton et al. 2022, Theorem 1"),
    "supervised_et": Method(
        "pu_lib.baselines:SupervisedExtraTreesClassifier", "classifier",
        "oracle: PN Extra Trees trained on the true classes", "Wilton et al. 2022 (SupervisedET)"),
    "naive_pu_et": Method(
        "pu_lib.baselines:NaivePUExtraTreesClassifier", "classifier",
        "PN Extra Trees with the unlabeled rows as negatives", "Wilton et al. 2022 (NaivePUET)"),
    "pu_bagging_et": Method(
        "pu_lib.baselines:PUBaggingExtraTreesClassifier", "classifier",
        "PU bagging with a PN Extra Trees base", "Mordelet & Vert 2014; Wilton et al. 2022 (PUBaggingET)"),
    # --- PU Hellinger trees (Ortega Vazquez, vanden Broucke, De Weerdt) and HDT
    "pu_hellinger_tree": Method(
        "pu_lib.trees:PUHellingerTreeClassifier", "classifier",
        "PU-HDT: Hellinger distance on prior-estimated class counts (depth 5)",
        "Ortega Vazquez et al., PU Hellinger trees, Algorithm 1"),
    "hellinger_tree": Method(
        "pu_lib.trees:HellingerTreeClassifier", "classifier",
        "HDT: Hellinger distance tree fitted on s (depth 5)", "Cieslak & Chawla 2008; PU-HDT paper (HDT)"),
    "pu_hellinger_forest": Method(
        "pu_lib.trees:PUHellingerForestClassifier", "classifier",
        "PU-SHRF (bootstrap='stratified') / PU-HRF ('standard'): forests of PU-HDTs",
        "Ortega Vazquez et al., PU Hellinger trees, Algorithm 2"),
    "adasyn_rf": Method(
        "pu_lib.baselines:ADASYNRandomForestClassifier", "classifier",
        "non-PU: ADASYN oversampling of s (5 neighbours, balanced) + random forest (100 trees) on s",
        "Ortega Vazquez et al., PU Hellinger trees, Table 2 (RF + ADASYN)"),
    "upu_xgb": Method(
        "pu_lib.baselines:PURiskXGBClassifier", "classifier",
        "uPU risk (logistic loss) minimised by XGBoost as a custom objective (100 rounds, depth 6)",
        "du Plessis, Niu & Sugiyama 2015 (ICML), eq. 4; PU Hellinger paper, Table 2 (uPU)",
        defaults={"risk": "upu"}),
    "nnpu_xgb": Method(
        "pu_lib.baselines:PURiskXGBClassifier", "classifier",
        "nnPU risk (sigmoid loss, Kiryo et al.'s) by XGBoost: the non-negative correction per boosting round "
        "(whole training set as batch)",
        "Kiryo et al. 2017 (NeurIPS), eq. 6 and Algorithm 1; PU Hellinger paper, Table 2 (nnPU)",
        defaults={"risk": "nnpu", "loss": "sigmoid"}),
    "imbalanced_nnpu_xgb": Method(
        "pu_lib.baselines:PURiskXGBClassifier", "classifier",
        "imbalanced nnPU by XGBoost: the nnPU risk (sigmoid loss) re-weighted to an oversampled prior pi' = 0.5",
        "Su, Chen & Xu 2021 (IJCAI), eq. 7; PU Hellinger paper, Table 2 (imbalanced nnPU)",
        defaults={"risk": "imbalanced_nnpu", "loss": "sigmoid"}),
    "nnpu_xgb_csboost": Method(
        "pu_lib.baselines:PURiskXGBClassifier", "classifier",
        "nnPU by XGBoost as the PU Hellinger authors ran it (CSBoost 'nnpu'): logistic loss, the coefficient of "
        "l(z, -1) clipped at 0 per row (labeled rows positive with weight 1/c, unlabeled rows negative)",
        "PU Hellinger paper, Table 2 (nnPU); the authors' ecsmodels/methodologies/cs_boost.py",
        defaults={"risk": "nnpu", "loss": "logistic", "correction": "per_row"}),
    "imbalanced_nnpu_xgb_csboost": Method(
        "pu_lib.baselines:PURiskXGBClassifier", "classifier",
        "imbalanced nnPU by XGBoost as the PU Hellinger authors ran it (CSBoost 'imbnnpu'): logistic loss, per-row "
        "clip (labeled rows positive with weight pi', unlabeled rows negative with (1 - pi') / (1 - pi))",
        "PU Hellinger paper, Table 2 (imbalanced nnPU); the authors' ecsmodels/methodologies/cs_boost.py",
        defaults={"risk": "imbalanced_nnpu", "loss": "logistic", "correction": "per_row"}),
    # --- Ada-PU (Zhao et al.) and its PN boosting baselines
    "ada_pu": Method(
        "pu_lib.ensemble:AdaPUClassifier", "classifier",
        "Ada-PU: AdaBoost with decision stumps on PU data (uPU-weighted P+, U-, P- copies)",
        "Zhao et al., A Boosting Algorithm for PU Learning, Algorithms 1-2"),
    "pn_boosting": Method(
        "pu_lib.baselines:PNBoostingClassifier", "classifier",
        "oracle: AdaBoost / gradient boosting / XGBoost stumps on a PN sample (n_p = the labeled positives, "
        "n_n = int((pi_n/2pi_p)^2 n_p), at least 1)",
        "Zhao et al. (Ada-PU), Sections 5.1-5.2.2"),
    # --- learning from SAR data (Bekker thesis, chapter 5)
    "supervised": Method(
        "pu_lib.baselines:SupervisedClassifier", "classifier",
        "oracle: the base classifier trained on the true classes", "Bekker thesis 5.6.2 (Supervised)",
        takes_base=True),
    "propensity_weighted": Method(
        "pu_lib.sar:PropensityWeightedClassifier", "classifier",
        "SAR: propensity-weighted risk with the given (true) propensity scores",
        "Bekker thesis 5.3, Definition 7", takes_base=True),
    "label_frequency_weighted": Method(
        "pu_lib.sar:LabelFrequencyWeightedClassifier", "classifier",
        "SCAR: weighting with a given, true or estimated label frequency c (c = 1: naive)",
        "Bekker thesis 2.4.3 and 5.6.2 (SCAR, Naive)", takes_base=True),
    "sar_em": Method(
        "pu_lib.sar:SAREMClassifier", "classifier",
        "SAR-EM: classifier and propensity model by EM on the propensity attributes",
        "Bekker thesis 5.4.2", takes_base=True),
    # --- neural PU learners (PyTorch, extra "nn")
    "upu": Method(
        "pu_lib.neural:NNPUClassifier", "classifier",
        "uPU risk (sigmoid loss) minimised by a neural network (Adam, mini-batches)",
        "du Plessis, Niu & Sugiyama 2014/2015; Kiryo et al. 2017 (uPU baseline)", defaults={"risk": "upu"}),
    "nnpu": Method(
        "pu_lib.neural:NNPUClassifier", "classifier",
        "nnPU: non-negative PU risk (sigmoid loss) with Kiryo et al.'s corrected step, neural network",
        "Kiryo et al. 2017 (NeurIPS), eq. 6 and Algorithm 1", defaults={"risk": "nnpu"}),
    "imbalanced_nnpu": Method(
        "pu_lib.neural:NNPUClassifier", "classifier",
        "imbalanced nnPU: the nnPU risk re-weighted to an oversampled prior pi' = 0.5, neural network",
        "Su, Chen & Xu 2021 (IJCAI), eq. 7", defaults={"risk": "imbalanced_nnpu"}),
    "vpu": Method(
        "pu_lib.neural:VPUClassifier", "classifier",
        "VPU: variational PU learning with MixUp consistency, no class prior needed, neural network",
        "Chen et al. 2020 (NeurIPS)"),
    "selfpu": Method(
        "pu_lib.neural:SelfPUClassifier", "classifier",
        "Self-PU: nnPU with self-paced selection, self-distillation (two students, mean teachers) and optional "
        "self-calibration, neural network",
        "Chen, Chen, Chen, Yuan, Gong, Chen & Wang 2020 (ICML); VITA-Group/Self-PU"),
    # --- class-prior estimators
    "tice": _prior_method(
        "tice",
        "tree induction for label-frequency estimation", "Bekker & Davis 2018; Bekker thesis ch. 3"),
    "pulscar": _prior_method(
        "pulscar",
        "alpha from beta-kernel densities of classifier probabilities (SCAR)", "Kumar & Lambert 2024",
        takes_base=True),
    "pulsnar": _prior_method(
        "pulsnar",
        "PULSCAR per cluster of the labeled positives (SNAR)", "Kumar & Lambert 2024", takes_base=True),
    "elkan_noto_prior": _prior_method(
        "elkan_noto_prior",
        "label frequency by Elkan & Noto's e1 / e2 / e3", "Elkan & Noto 2008", takes_base=True),
    "km1": _prior_method(
        "km1",
        "KM1: kernel-embedding distance curve, slope threshold 1/sqrt(min(|U|, |P|))",
        "Ramaswamy, Scott & Tewari 2016"),
    "km2": _prior_method(
        "km2",
        "KM2: kernel-embedding distance curve, slope threshold from the initial slope",
        "Ramaswamy, Scott & Tewari 2016"),
    "dedpul": _prior_method(
        "dedpul",
        "alpha from the processed ratio of kernel densities of classifier predictions (EM / dmin)",
        "Ivanov 2020 (DEDPUL)", takes_base=True),
    "alphamax": _prior_method(
        "alphamax",
        "alpha at the knee of the maximised histogram-mixture log-likelihood of classifier predictions",
        "Jain, White, Trosset & Radivojac 2016 (AlphaMax)", takes_base=True),
    "alphamax_n": _prior_method(
        "alphamax_n",
        "AlphaMax for labeled positives contaminated by negatives: two AlphaMax runs combined",
        "Jain, White & Radivojac 2016 (AlphaMax-N, NeurIPS)", takes_base=True),
    "pe": _prior_method(
        "pe",
        "PE: partial matching of theta p(x|y=1) to the data under the Pearson divergence (uLSIF, Gaussian basis)",
        "du Plessis & Sugiyama 2014 (IEICE E97-D(5))"),
    "pen_l1": _prior_method(
        "pen_l1",
        "pen-L1: the prior of least penalised L1 distance between theta p(x|y=1) and p(x), closed form per candidate",
        "du Plessis, Niu & Sugiyama 2015 (ACML; 'Christoffel, Niu & Sugiyama 2016' in the Bekker thesis)"),
}


def names(kind: str | None = None) -> list[str]:
    """Registered names, in registry order; only those of ``kind`` when given."""
    if kind is not None and kind not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)}, got {kind!r}")
    return [n for n, m in METHODS.items() if kind is None or m.kind == kind]


def get(name: str, kind: str | None = None) -> Method:
    """The :class:`Method` registered as ``name`` (of ``kind`` when given); ``ValueError``
    naming the known names otherwise."""
    known = names(kind)
    if not isinstance(name, str) or name not in known:
        what = "method" if kind is None else f"{kind} method"
        raise ValueError(f"unknown {what} {name!r}; known: {known}")
    return METHODS[name]


def method_class(name: str, kind: str | None = None):
    """Import and return the class registered as ``name``."""
    module, cls = get(name, kind).target.split(":")
    return getattr(importlib.import_module(module), cls)


def parameter_schema(name: str) -> dict[str, dict]:
    """``{parameter: {"default": ..., "constraints": [...]}}`` of a registered method, from
    its ``__init__`` signature and its scikit-learn ``_parameter_constraints`` (a list of
    readable constraint strings; empty when the class declares none for it)."""
    cls = method_class(name)
    sig = inspect.signature(cls.__init__)
    constraints = getattr(cls, "_parameter_constraints", {}) or {}
    out = {}
    for p in sig.parameters.values():
        if p.name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        default = METHODS[name].defaults.get(p.name, p.default)
        out[p.name] = {
            "default": None if default is inspect.Parameter.empty else default,
            "constraints": [_describe(c) for c in constraints.get(p.name, [])],
        }
    return out


def _describe(constraint) -> str:
    if constraint is None:
        return "None"
    options = getattr(constraint, "options", None)
    if isinstance(options, (set, frozenset)):  # StrOptions / Options: in a stable order
        return "one of " + ", ".join(repr(o) for o in sorted(options, key=repr))
    if isinstance(constraint, type):
        return constraint.__name__
    if isinstance(constraint, str):
        return constraint
    return str(constraint)


def make_estimator(name: str, params: dict | None = None, *, kind: str | None = None, random_state=None,
                   n_jobs=None):
    """A new estimator of the method ``name`` with ``params`` (registry defaults first).

    ``random_state`` and ``n_jobs`` are set when the class takes them and ``params`` does
    not name them. Unknown parameter names raise ``ValueError`` naming the accepted ones;
    parameter values are checked by the estimator itself (its ``fit``), or up front by
    :func:`check_params`.
    """
    method = get(name, kind)
    return construct(method_class(name), method.defaults, params, random_state=random_state, n_jobs=n_jobs)


def sparse_methods() -> dict[str, str]:
    """Registered methods that take sparse ``X``: name -> "" (always) or the condition
    ("with ..."), read from each class's ``_accepts_sparse`` and the registry defaults."""
    from pu_lib._validation import accepts_sparse
    from pu_lib.base import SparseWhen

    out = {}
    for name in names():
        try:
            cls = method_class(name)
        except ImportError:  # an optional dependency is missing: the method cannot run anyway
            continue
        flag = inspect.getattr_static(cls, "_accepts_sparse", False)
        if isinstance(flag, SparseWhen):
            out[name] = "" if accepts_sparse(make_estimator(name)) else flag.text
        elif flag is True:
            out[name] = ""
    return out


def sparse_methods_text() -> str:
    """The sparse-capable methods as one line: those that take it by default, then each
    condition with its methods (:data:`pu_lib._validation.SPARSE_METHODS_TEXT`, the message
    of ``SparseInputError``, is this text; a test checks it is current)."""
    groups: dict[str, list[str]] = {}
    for n, cond in sparse_methods().items():
        groups.setdefault(cond, []).append(n)
    parts = [", ".join(groups.pop("", []))] + [f"{cond}: {', '.join(names)}" for cond, names in groups.items()]
    return "; ".join(p for p in parts if p) or "none"


def check_params(name: str, params: dict | None = None) -> None:
    """Raise ``ValueError`` naming the parameter and its allowed values when ``params``
    do not fit the method's parameter schema (no fitting, no data)."""
    est = make_estimator(name, params)
    validate = getattr(est, "_validate_params", None)
    if validate is not None and getattr(type(est), "_parameter_constraints", None):
        validate()


def markdown() -> str:
    """``docs/methods.md``: every registered method with its class, source, parameters,
    defaults and allowed values (written by ``python -m pu_lib.workflow.registry docs/methods.md``;
    a test checks the file is current)."""
    lines = [
        "# Registered methods",
        "",
        "Generated from `pu_lib.workflow.registry` by `python -m pu_lib.workflow.registry docs/methods.md`; do not edit by hand.",
        "A config names a method under `methods: {<name>: {method: <registry name>, params: {...}}}`;",
        "class-prior estimators (kind `prior`) are also accepted as a classifier's `prior=` by name.",
        "",
        "| name | kind | class | what | source |",
        "|---|---|---|---|---|",
    ]
    for name, m in METHODS.items():
        lines.append(f"| `{name}` | {m.kind} | `{m.target.replace(':', '.')}` | {m.summary} | {m.paper} |")
    for name, m in METHODS.items():
        what = m.summary[:1].upper() + m.summary[1:]
        lines += ["", f"## `{name}`", "", f"`{m.target.replace(':', '.')}` ({m.kind}). {what}; {m.paper}.", ""]
        if m.takes_base:
            lines += ["Takes a base classifier: `base:` in a config (`pu_lib.base_learners.BASE_ESTIMATORS`).", ""]
        lines += ["| parameter | default | allowed values |", "|---|---|---|"]
        for p, info in parameter_schema(name).items():
            allowed = "; ".join(info["constraints"]).replace("|", "\\|") or "(not declared)"
            default = repr(info["default"]).replace("|", "\\|")
            lines.append(f"| `{p}` | `{default}` | {allowed} |")
    return "\n".join(lines) + "\n"


def probabilities_markdown() -> str:
    """``docs/probabilities.md``: every registered classifier with the kind of its
    ``predict_proba`` (read from its ``_proba_kind`` with the registry's defaults) and its
    ``predict_proba`` docstring (written by ``python -m pu_lib.workflow.registry --probabilities
    docs/probabilities.md``; a test checks the file is current)."""
    from pu_lib.calibration import PROBA_KINDS, proba_doc, proba_kind

    def one_line(text: str | None) -> str:
        return " ".join((text or "").split()).replace("|", "\\|")

    lines = [
        "# What `predict_proba` returns",
        "",
        "Generated from the classifiers' `_proba_kind` attributes by "
        "`python -m pu_lib.workflow.registry --probabilities docs/probabilities.md`; do not edit by hand.",
        "Column 1 of `predict_proba` (column 0 is one minus it) is one of:",
        "",
    ]
    for kind, what in PROBA_KINDS.items():
        lines.append(f"- `{kind}`: {what}.")
    lines += [
        "",
        "A `posterior` claim holds under the method's assumptions (SCAR unless the class says otherwise) and with the",
        "right class prior where the method takes one; `tests/test_probabilities.py` checks it on synthetic SCAR data",
        "with a known posterior (expected calibration error). A `labeled` or `score` classifier becomes a `posterior`",
        "one with `pu_lib.calibration.PUCalibratedClassifier(estimator, prior=...)`: a monotone map from its held-out",
        "scores to `s`, divided by the label frequency `c = P(s = 1) / prior` (Elkan & Noto 2008, Lemma 1), e.g.",
        "",
        "```python",
        "from pu_lib.calibration import PUCalibratedClassifier",
        "from pu_lib.ensemble import AdaPUClassifier",
        "",
        "clf = PUCalibratedClassifier(AdaPUClassifier(prior=0.3), prior=0.3, method=\"isotonic\", cv=5).fit(X, s)",
        "p = clf.predict_proba(X_new)[:, 1]  # P(y = 1 | x)",
        "```",
        "",
        "The kind is that of the registered defaults; where a parameter changes it, the class docstring says so",
        "(e.g. `ElkanNotoClassifier(proba=...)`, `PUHellingerTreeClassifier(proba=...)`).",
        "",
        "| name | class | kind | column 1 of `predict_proba` (from the class docstring) |",
        "|---|---|---|---|",
    ]
    for name in names("classifier"):
        est = make_estimator(name)
        target = get(name).target.replace(":", ".")
        lines.append(f"| `{name}` | `{target}` | {proba_kind(est)} | {one_line(proba_doc(type(est)))} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # pragma: no cover - a command-line helper, tested through the two functions
    import sys

    from pu_lib._io import write_text_atomic

    args = sys.argv[1:]
    if args[:1] == ["--probabilities"] and len(args) == 2:
        write_text_atomic(probabilities_markdown(), args[1])
    elif len(args) == 1 and not args[0].startswith("-"):
        write_text_atomic(markdown(), args[0])
    else:
        raise SystemExit("usage: python -m pu_lib.workflow.registry OUT.md (docs/methods.md) | "
                         "python -m pu_lib.workflow.registry --probabilities OUT.md (docs/probabilities.md)")
