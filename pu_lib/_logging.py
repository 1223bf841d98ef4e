"""Logging set-up for workflow scripts: everything (including warnings and tracebacks)
goes to the rule's log file."""

from __future__ import annotations

import logging
import sys


def log_to_file(path: str) -> logging.Logger:
    handle = open(path, "w", encoding="utf-8")  # noqa: SIM115 - lives for the process
    sys.stderr = handle
    logging.basicConfig(
        stream=handle, level=logging.INFO, force=True,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.captureWarnings(True)
    return logging.getLogger("pu_lib.workflow")
