"""Files we write: output paths checked before any work, then atomic writes.

:func:`check_output_file` and :func:`check_output_folder` are what every command that writes
calls before it starts (a folder where a file is wanted, a file where a folder is wanted, a path
under a file, an unwritable place: one line, nothing created). :func:`atomic_open` writes a
temporary file in the target's folder, then renames it: a reader never sees a half-written file,
and a failure (or a kill) leaves the old file, if any, untouched and no temporary file behind
(except after a kill, a hidden ``.name.*.tmp``). Two writers of one path never mix their bytes:
each writes its own temporary file and the last rename wins whole.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from ccomplexity.errors import InputError


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


def _nearest_existing(path: Path) -> Path:
    """``path`` or its closest ancestor that exists (``.`` for a relative path with none)."""
    for candidate in (path, *path.parents):
        if candidate.exists() or candidate.is_symlink():
            return candidate
    return Path(".")


def _check_folder_path(folder: Path, what: str, create: bool, target: Path) -> None:
    """``folder`` is, or could be created as, a folder this process may write ``target`` in."""
    existing = _nearest_existing(folder)
    if not existing.is_dir():
        if existing == target:
            raise InputError(f"{what} {target} is a file, not a folder")
        raise InputError(f"{what} {target} lies under {existing}, which is a file, not a folder")
    if existing != folder and not create:
        raise InputError(f"cannot write {what} {target}: folder {folder} does not exist")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise InputError(f"cannot write {what} {target}: {existing} is not writable")


def check_output_file(path: str | os.PathLike[str], what: str, create_folder: bool = False) -> Path:
    """Check, before any work, that a file can be written at ``path``; create nothing.

    Refused with one-line InputErrors: a folder where the file should go, a path under a file,
    a folder that does not exist (unless ``create_folder``: then it is created when written), and
    a folder or file this process may not write.
    """
    target = Path(path)
    if str(path) == "" or target.name in ("", ".", ".."):
        raise InputError(f"{what} path {str(path)!r} does not name a file")
    if target.is_dir():
        raise InputError(f"{what} {target} is a folder; give a file path")
    _check_folder_path(target.parent, what, create_folder, target)
    if target.exists() and not os.access(target, os.W_OK):
        raise InputError(f"cannot write {what} {target}: permission denied")
    return target


def check_output_folder(path: str | os.PathLike[str], what: str) -> Path:
    """Check, before any work, that ``path`` is a folder or can be created as one; create
    nothing. A file there, a path under a file or an unwritable place is a one-line InputError.
    """
    if str(path) == "":
        raise InputError(f"{what} path is empty")
    folder = Path(path)
    _check_folder_path(folder, what, True, folder)
    return folder
