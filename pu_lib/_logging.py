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


def _format_seconds(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


class Progress:
    """Progress of long work (``done / total``, elapsed time, an estimate of the time left).

    Each :meth:`update` counts finished units. A line goes to ``logger`` (INFO) for the
    first and the last unit and otherwise at most every ``interval`` seconds, so a log file
    of a long job shows how far it got; when the process' original standard error is a
    terminal (an interactive ``snakemake`` run: job scripts inherit it even though
    :func:`log_to_file` redirects ``sys.stderr`` to the log), the same line is printed
    there too. The estimate of the time left is ``elapsed / done * (total - done)``: units
    are assumed to cost about the same (repetitions of one cell do).

    ``clock`` (default :func:`time.monotonic`) and ``terminal`` (default: the original
    standard error when it is a TTY, else none) exist for tests.
    """

    def __init__(self, total: int, desc: str, logger: logging.Logger | None = None, interval: float = 10.0,
                 unit: str = "repetitions", clock=None, terminal="auto"):
        import time

        self.total = int(total)
        self.desc = desc
        self.logger = logger or logging.getLogger("pu_lib.progress")
        self.interval = float(interval)
        self.unit = unit
        self._clock = clock or time.monotonic
        self._start = self._clock()
        self._last = None
        self.done = 0
        if terminal == "auto":
            stream = sys.__stderr__
            terminal = stream if stream is not None and stream.isatty() else None
        self.terminal = terminal
        self.lines: list[str] = []

    def line(self) -> str:
        elapsed = self._clock() - self._start
        text = f"{self.desc}: {self.done}/{self.total} {self.unit} done, {_format_seconds(elapsed)} elapsed"
        if 0 < self.done < self.total:
            text += f", about {_format_seconds(elapsed / self.done * (self.total - self.done))} left"
        return text

    def update(self, n: int = 1) -> None:
        self.done += int(n)
        now = self._clock()
        if self.done in (1, self.total) or self._last is None or now - self._last >= self.interval:
            self._last = now
            text = self.line()
            self.lines.append(text)
            self.logger.info(text)
            if self.terminal is not None:
                print(text, file=self.terminal, flush=True)
