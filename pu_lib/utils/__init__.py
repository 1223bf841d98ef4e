"""Utilities for developers of PU estimators (:mod:`pu_lib.utils.estimator_checks`)."""
