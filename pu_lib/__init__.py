"""pu_lib: learning from positive and unlabeled (PU) data.

Importing the package is cheap: no numba compilation and no Dask start-up happen
at import time; heavy submodules are imported where they are used.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
