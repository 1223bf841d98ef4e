"""Moved to :mod:`pu_lib.workflow.figures` (the workflow and benchmark machinery, apart from the
library); this path serves it with a deprecation warning and goes in the next release."""

import importlib
import sys
import warnings

warnings.warn("pu_lib.figures moved to pu_lib.workflow.figures; import it from there (this path goes in the next release)",
              FutureWarning, stacklevel=2)
sys.modules[__name__] = importlib.import_module("pu_lib.workflow.figures")
