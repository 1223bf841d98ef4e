"""Progress lines of long work (pu_lib._logging.Progress): done / total, elapsed, time left."""

import io
import logging

from pu_lib._logging import Progress


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def test_progress_lines_count_and_estimate_the_time_left(caplog):
    clock = Clock()
    term = io.StringIO()
    p = Progress(4, "exp/data/setting/method", interval=10.0, clock=clock, terminal=term)
    with caplog.at_level(logging.INFO, logger="pu_lib.progress"):
        clock.t = 3.0
        p.update()          # first unit: always reported
        clock.t = 6.0
        p.update()          # 3 s after the last line: within the interval, silent
        clock.t = 20.0
        p.update()          # 17 s after: reported
        clock.t = 21.0
        p.update()          # last unit: always reported
    assert p.lines == [
        "exp/data/setting/method: 1/4 repetitions done, 3 s elapsed, about 9 s left",
        "exp/data/setting/method: 3/4 repetitions done, 20 s elapsed, about 7 s left",
        "exp/data/setting/method: 4/4 repetitions done, 21 s elapsed",
    ]
    assert [r.getMessage() for r in caplog.records] == p.lines
    assert term.getvalue().splitlines() == p.lines


def test_progress_formats_minutes_and_hours_and_stays_off_a_non_terminal():
    clock = Clock()
    p = Progress(3, "x", clock=clock, unit="fits", terminal=None)
    clock.t = 125.0
    p.update()
    clock.t = 7500.0
    p.update()
    assert p.lines[0] == "x: 1/3 fits done, 2 min 05 s elapsed, about 4 min 10 s left"
    assert p.lines[1] == "x: 2/3 fits done, 2 h 05 min elapsed, about 1 h 02 min left"
    assert p.terminal is None
