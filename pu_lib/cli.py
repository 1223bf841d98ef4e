"""Moved to :mod:`pu_lib.workflow.cli` (the workflow and benchmark machinery, apart from the
library); this path serves it with a deprecation warning and goes in the next release."""

import importlib
import sys
import warnings

warnings.warn("pu_lib.cli moved to pu_lib.workflow.cli; import it from there (this path goes in the next release)",
              FutureWarning, stacklevel=2)
sys.modules[__name__] = importlib.import_module("pu_lib.workflow.cli")
