"""Shared test paths and fixtures.

Test modules import the constants directly (``from conftest import SHARED_DATASETS,
needs_mirror``): pytest puts this directory on ``sys.path`` when it loads this file.
"""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: the local data mirror (``manifest.csv`` plus Parquet files) beside the repository
SHARED_DATASETS = REPO.parent / "shared" / "datasets"
#: skip marker for tests that read the data mirror
needs_mirror = pytest.mark.skipif(
    not (SHARED_DATASETS / "manifest.csv").exists(), reason=f"no data mirror at {SHARED_DATASETS}"
)


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def shared_datasets() -> Path:
    """:data:`SHARED_DATASETS`, for tests that take the mirror as a fixture."""
    return SHARED_DATASETS


@pytest.fixture(scope="session")
def schema_path(repo) -> Path:
    return repo / "workflow" / "schemas" / "config.schema.yaml"
