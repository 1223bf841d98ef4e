"""Test doubles shared by the workflow-runner tests: a logistic regression on ``s`` that
registered test estimators subclass to record what they were given."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin


class LogisticOnS(ClassifierMixin, BaseEstimator):
    """``predict_proba`` / ``predict`` of the model that :meth:`_fit_on_s` fitted on (X, s)."""

    def _fit_on_s(self, model, X, s):
        self.model_ = model.fit(X, s)
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, X):
        return self.model_.predict_proba(X)

    def predict(self, X):
        return self.model_.predict(X).astype(np.int8)
