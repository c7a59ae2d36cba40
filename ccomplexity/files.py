"""Atomic file writes: a temporary file in the target's folder, then a rename.

A reader never sees a half-written file, and a failure (or a kill) leaves the old file, if any,
untouched and no temporary file behind (except after a kill, a hidden ``.name.*.tmp``).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any


@contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w") -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path`` for writing (``"w"`` text UTF-8, ``"wb"`` binary);
    on a clean exit it replaces ``path`` in one rename, on an exception it is removed."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open writes only, mode 'w' or 'wb', got {mode!r}")
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode, **({"encoding": "utf-8"} if mode == "w" else {})) as handle:
            yield handle
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
