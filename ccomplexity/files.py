"""Files we write: one rule for every output path, checked before any work, then atomic writes.

The rule, for every file or folder a command writes (certificates, checkpoints and their folder,
results stores, figures, reports, CSV exports): :func:`check_output_file` or
:func:`check_output_folder` is called before the command starts its work. It resolves the path
(links followed) and refuses, with one line and nothing created:

- a path that is one of the command's own inputs (``--certificate in.csv`` with ``--file
  in.csv``, a certificate over its ``--checkpoint``, a store over its spec): writing would destroy
  the input;
- a folder where a file is wanted, a file where a folder is wanted, a path under a file;
- a place this process cannot write: a missing folder (unless it is to be created), a read-only
  or pseudo file system (``/proc``). Writability is probed by creating and removing a temporary
  file in the nearest existing folder, so it holds for every user, root included.

:func:`atomic_open` then writes a temporary file in the target's folder and renames it: a reader
never sees a half-written file, and a failure (or a kill) leaves the old file, if any, untouched
and no temporary file behind (except after a kill, a hidden ``.name.*.tmp``). Two writers of one
path never mix their bytes: each writes its own temporary file and the last rename wins whole.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from ccomplexity.errors import InputError

PathLike = str | os.PathLike[str]


def umask() -> int:
    """The process's umask (read by setting it and putting it back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextmanager
def atomic_open(path: PathLike, mode: str = "w") -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path`` for writing (``"w"`` text UTF-8, ``"wb"`` binary);
    on a clean exit it replaces ``path`` in one rename, on an exception it is removed. The file
    gets the mode a plain ``open`` would give it (0666 less the umask: 0644 under umask 022).
    Where ``path`` is a symbolic link, its target is written and the link stays (a dangling one
    or a loop is refused by :func:`check_output_file` before any work)."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open writes only, mode 'w' or 'wb', got {mode!r}")
    target = Path(path)
    if target.is_symlink():  # write the link's target: the link stays a link
        target = Path(os.path.realpath(target, strict=True))
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~umask())  # mkstemp makes 0600; a written file follows the umask
        with os.fdopen(fd, mode, **({"encoding": "utf-8"} if mode == "w" else {})) as handle:
            yield handle
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _nearest_existing(path: Path) -> Path:
    """``path`` or its closest ancestor that exists (``.`` for a relative path with none)."""
    for candidate in (path, *path.parents):
        try:
            if candidate.exists() or candidate.is_symlink():
                return candidate
        except OSError:  # a name the system cannot look up is not there
            continue
    return Path(".")


def _writable(folder: Path) -> str | None:
    """None if a file can be created (and renamed) in the existing ``folder``; else why not."""
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".ccx-probe.", suffix=".tmp")
    except OSError as err:
        return err.strerror or type(err).__name__
    os.close(fd)
    Path(probe).unlink(missing_ok=True)
    return None


def _check_folder_path(folder: Path, what: str, create: bool, target: Path) -> None:
    """``folder`` is, or could be created as, a folder this process may write ``target`` in."""
    existing = _nearest_existing(folder)
    if not existing.is_dir():
        if existing == target:
            raise InputError(f"{what} {target} is a file, not a folder")
        raise InputError(f"{what} {target} lies under {existing}, which is a file, not a folder")
    if existing != folder and not create:
        raise InputError(f"cannot write {what} {target}: folder {folder} does not exist")
    why = _writable(existing)
    if why is not None:
        raise InputError(f"cannot write {what} {target}: {existing} is not writable ({why})")


def _resolved(path: PathLike) -> Path:
    return Path(os.path.realpath(os.fspath(path)))


NAME_MAX = 255
"""Longest file name (one path component) where the system does not say (POSIX: 14 at least,
255 on every common file system)."""
PATH_MAX = 4096
"""Longest path where the system does not say (Linux's PATH_MAX)."""


def _system_limit(folder: Path, name: str, default: int) -> int:
    try:
        return os.pathconf(folder, name)
    except (OSError, ValueError, AttributeError):
        return default


def check_path_name(path: PathLike, what: str) -> Path:
    """Refuse, in one line, a path the system cannot name (a component longer than NAME_MAX, a
    path longer than PATH_MAX, a NUL byte) and a symbolic link that leads nowhere (dangling) or
    in a loop; returns the path to write: the link's target for a link to an existing file (so
    the link stays a link)."""
    text = os.fspath(path)
    if "\0" in text:
        raise InputError(f"{what} path contains a NUL byte")
    folder = Path(".")  # the limits of the working folder's file system (no path is looked up)
    longest = max((len(os.fsencode(part)) for part in Path(text).parts), default=0)
    name_max = _system_limit(folder, "PC_NAME_MAX", NAME_MAX)
    if longest > name_max:
        raise InputError(
            f"{what} path has a name of {longest} bytes; the system's limit is {name_max} "
            "(NAME_MAX): give a shorter name"
        )
    path_max = _system_limit(folder, "PC_PATH_MAX", PATH_MAX)
    if len(os.fsencode(os.path.abspath(text))) >= path_max:
        raise InputError(
            f"{what} path is {len(os.fsencode(os.path.abspath(text)))} bytes long; the system's "
            f"limit is {path_max} (PATH_MAX): give a shorter path"
        )
    target = Path(text)
    if target.is_symlink() or any(p.is_symlink() for p in target.parents):
        try:
            resolved = Path(os.path.realpath(text, strict=True))
        except RuntimeError:  # Python < 3.13 reports loops so with strict=False only
            raise InputError(f"{what} {text} is a symbolic link loop") from None
        except OSError as err:
            if err.errno == 40:  # ELOOP
                raise InputError(f"{what} {text} is a symbolic link loop") from None
            if target.is_symlink():
                raise InputError(
                    f"{what} {text} is a dangling symbolic link (to {os.readlink(text)}): give "
                    "a path that exists, or remove the link"
                ) from None
            return target
        return resolved if target.is_symlink() else target
    return target


def check_not_input(path: PathLike, what: str, inputs: Iterable[PathLike | None]) -> None:
    """Refuse ``path`` when, resolved, it is the same file or folder as one of ``inputs``."""
    target = _resolved(path)
    for given in inputs:
        if given is None or os.fspath(given) == "":
            continue
        source = _resolved(given)
        same = source == target
        if not same and source.exists() and target.exists():
            same = os.path.samefile(source, target)
        if same:
            raise InputError(
                f"{what} {os.fspath(path)} is an input of this command ({os.fspath(given)}); "
                "writing it would destroy the input: give another path"
            )


def check_output_file(
    path: PathLike,
    what: str,
    create_folder: bool = False,
    inputs: Iterable[PathLike | None] = (),
) -> Path:
    """Check, before any work, that a file can be written at ``path``; create nothing.

    Refused with one-line InputErrors: one of ``inputs`` (the command's input files), a folder
    where the file should go, a path under a file, a folder that does not exist (unless
    ``create_folder``: then it is created when written), and a place this process may not write.
    """
    if str(path) == "" or Path(path).name in ("", ".", ".."):
        raise InputError(f"{what} path {str(path)!r} does not name a file")
    target = check_path_name(path, what)
    check_not_input(path, what, inputs)
    if target.is_dir():
        raise InputError(f"{what} {target} is a folder; give a file path")
    if target.exists() and not target.is_file():
        raise InputError(f"{what} {target} is not a regular file")
    _check_folder_path(target.parent, what, create_folder, target)
    return target


def check_output_folder(path: PathLike, what: str, inputs: Iterable[PathLike | None] = ()) -> Path:
    """Check, before any work, that ``path`` is a folder or can be created as one; create
    nothing. One of ``inputs``, a file there, a path under a file or an unwritable place is a
    one-line InputError."""
    if str(path) == "":
        raise InputError(f"{what} path is empty")
    folder = check_path_name(path, what)
    check_not_input(path, what, inputs)
    _check_folder_path(folder, what, True, folder)
    return folder
