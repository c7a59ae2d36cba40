"""Where a long job is: a status line with the elapsed time and an ETA, at least every
:data:`QUIET_SECONDS` while nothing else is printed.

:class:`Progress` times a job made of named parts (the demo's shares), each with an expected
duration measured on an idle 2-core machine. It prints a header line when a part starts and a
closing line when it ends; in between, a watcher thread prints a status line whenever the
standard output and error have been silent for :data:`QUIET_SECONDS` (a sweep in a pool, a long
figure). The ETA of the whole job is what the parts still ahead are expected to take, plus what
the current part is expected to take beyond what it has already run, with every expectation
scaled by how fast the parts already done went against theirs (a loaded machine runs slower
than the measurements, and the ETA follows it).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TextIO

QUIET_SECONDS = 20.0
"""The longest silence before a status line."""


def clock(seconds: float) -> str:
    """``75`` -> ``1:15``; ``3725`` -> ``1:02:05``."""
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class _Watched:
    """A text stream that notes the time of every write (everything else is passed through)."""

    def __init__(self, stream: TextIO, progress: Progress) -> None:
        self._stream, self._progress = stream, progress

    def write(self, text: str) -> int:
        if text:
            self._progress.last_output = time.monotonic()
        return self._stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class Progress:
    """Time a job of parts with expected durations (seconds); see the module docstring."""

    def __init__(self, expected: Mapping[str, float], quiet: float = QUIET_SECONDS) -> None:
        self.expected = dict(expected)
        self.quiet = quiet
        self.start = time.monotonic()
        self.last_output = self.start
        self.done: dict[str, float] = {}
        self.part: str | None = None
        self.part_start = self.start
        self._lock = threading.Lock()
        self._stop = threading.Event()

    def pace(self) -> float:
        """Seconds taken per second expected, over the parts already done (1 before any)."""
        expected = sum(self.expected[p] for p in self.done)
        return sum(self.done.values()) / expected if expected > 0 else 1.0

    def remaining(self) -> float:
        """Expected seconds to the end of the job (see the module docstring)."""
        pace = self.pace()
        ahead = [p for p in self.expected if p not in self.done and p != self.part]
        left = sum(self.expected[p] for p in ahead) * pace
        if self.part is not None:
            ran = time.monotonic() - self.part_start
            left += max(self.expected[self.part] * pace - ran, 0.0)
        return left

    def status(self) -> str:
        """One line: the part running, its time against its expectation, the job's ETA."""
        now = time.monotonic()
        total = len(self.expected)
        index = list(self.expected).index(self.part) + 1 if self.part else len(self.done)
        part = ""
        if self.part is not None:
            ran = now - self.part_start
            part = (
                f"{self.part} {clock(ran)} of about "
                f"{clock(self.expected[self.part] * self.pace())}; "
            )
        return (
            f"  .. [{index}/{total}] {part}elapsed {clock(now - self.start)}, "
            f"about {clock(self.remaining())} left"
        )

    def say(self, line: str) -> None:
        with self._lock:
            print(line, flush=True)

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        """Run one part: a header line with its expected time and the job's ETA, then the part,
        then a line with the time it took."""
        if name not in self.expected:
            raise KeyError(f"no expected duration for part {name!r}")
        self.part, self.part_start = name, time.monotonic()
        index = list(self.expected).index(name) + 1
        self.say(
            f"[{index}/{len(self.expected)}] {name}: expected about "
            f"{clock(self.expected[name] * self.pace())}; demo elapsed "
            f"{clock(self.part_start - self.start)}, about {clock(self.remaining())} "
            "left"
        )
        try:
            yield
        finally:
            took = time.monotonic() - self.part_start
            self.done[name] = took
            self.part = None
            self.say(
                f"[{index}/{len(self.expected)}] {name} done in {clock(took)}; about "
                f"{clock(self.remaining())} left"
            )

    def _watch(self) -> None:
        while not self._stop.wait(min(1.0, self.quiet / 4)):
            if time.monotonic() - self.last_output >= self.quiet:
                self.say(self.status())

    @contextmanager
    def watching(self) -> Iterator[Progress]:
        """Watch standard output and error while the job runs; a status line after every
        :attr:`quiet` seconds of silence."""
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = _Watched(saved[0], self), _Watched(saved[1], self)
        watcher = threading.Thread(target=self._watch, name="progress", daemon=True)
        watcher.start()
        try:
            yield self
        finally:
            self._stop.set()
            watcher.join()
            sys.stdout, sys.stderr = saved


__all__ = ["QUIET_SECONDS", "Progress", "clock"]
