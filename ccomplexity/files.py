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

Every file is then written by the one helper :func:`atomic_open`, including the files a command
writes *inside* an output folder (a figure's PNG, PDF and CSV, a sweep's checkpoints): a new
temporary file in the target's folder, renamed over the target only when the target (its folder
resolved) is not a symbolic link and is not, by device and inode, one of the inputs the running
command has read (:func:`note_input`: stores, specs, certificates, checkpoints, plugin files).
A link in the way is refused in one line naming it, and so is an input. A reader never sees a
half-written file; a failure (a full disk included: one line naming the path, :class:`DiskFull`)
or a kill leaves the old file, if any, untouched and no temporary file behind (except after a
kill, a hidden ``.name.*.tmp``). Two writers of one path never mix their bytes: each writes its
own temporary file and the last rename wins whole.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from ccomplexity.errors import DiskFull, InputError

PathLike = str | os.PathLike[str]
_INPUTS: set[tuple[int, int]] | None = None
"""(device, inode) of every file the running command has read (None: no command is running,
as in library use, where only the ``inputs`` given to the checks below count)."""
FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
"""What a write into a full disk or quota fails with."""


def umask() -> int:
    """The process's umask (read by setting it and putting it back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextmanager
def command_inputs() -> Iterator[None]:
    """The inputs noted inside the block (:func:`note_input`) are protected from every write of
    :func:`atomic_open` until its end: one ``ccx`` call."""
    global _INPUTS
    saved, _INPUTS = _INPUTS, set()
    try:
        yield
    finally:
        _INPUTS = saved


def note_input(path: PathLike) -> None:
    """Record the file at ``path`` (links followed) as an input of the running command, so that
    no file the command writes replaces it (a no-op outside :func:`command_inputs`)."""
    if _INPUTS is None:
        return
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return
    _INPUTS.add((info.st_dev, info.st_ino))


def write_target(path: PathLike, what: str = "output file") -> Path:
    """The path a file written at ``path`` is renamed onto: its folder resolved (links there are
    the user's own), its name not a symbolic link, not something other than a regular file and
    not (by device and inode) an input of the running command; a one-line InputError naming it
    otherwise. Called before a command's work for every file it will write, and again by
    :func:`atomic_open` just before the rename."""
    given = Path(path)
    target = Path(os.path.realpath(given.parent)) / given.name
    try:
        info = os.lstat(target)
    except (FileNotFoundError, NotADirectoryError):  # not there: nothing in the way
        return target
    except OSError as err:
        raise InputError(f"cannot write {what} {given}: {err.strerror}") from None
    if stat.S_ISLNK(info.st_mode):
        raise InputError(
            f"{what} {given} is a symbolic link (to {os.readlink(target)}); files are never "
            "written through a link: remove the link, or write elsewhere"
        )
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{what} {given} is not a regular file")
    if _INPUTS and (info.st_dev, info.st_ino) in _INPUTS:
        raise InputError(
            f"{what} {given} is an input of this command; writing it would destroy the input: "
            "give another path"
        )
    return target


def full_disk(err: OSError, what: str, path: PathLike) -> InputError:
    """The one line for an OSError met writing ``path``: :class:`DiskFull` for a full disk or
    quota, an InputError naming the system's reason otherwise."""
    if err.errno in FULL:
        return DiskFull(
            f"cannot write {what} {path}: no space left on the device; nothing was "
            "written there (free some space and run again)"
        )
    return InputError(f"cannot write {what} {path}: {err.strerror or err}")


@contextmanager
def atomic_open(path: PathLike, mode: str = "w", what: str = "output file") -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path`` for writing (``"w"`` text UTF-8, ``"wb"`` binary);
    on a clean exit it replaces ``path`` in one rename, on an exception it is removed. The file
    gets the mode a plain ``open`` would give it (0666 less the umask: 0644 under umask 022).
    A link, a non-regular file or an input of the command at ``path`` is refused before and
    again just before the rename (:func:`write_target`); a full disk or another write error is
    one line naming ``path`` (:func:`full_disk`), and nothing is left there."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open writes only, mode 'w' or 'wb', got {mode!r}")
    target = write_target(path, what)
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as err:
        raise full_disk(err, what, path) from None
    try:
        os.fchmod(fd, 0o666 & ~umask())  # mkstemp makes 0600; a written file follows the umask
        with os.fdopen(fd, mode, **({"encoding": "utf-8"} if mode == "w" else {})) as handle:
            yield handle
        os.replace(tmp, write_target(path, what))
    except OSError as err:
        Path(tmp).unlink(missing_ok=True)
        raise full_disk(err, what, path) from None
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
    through_link: bool = False,
) -> Path:
    """Check, before any work, that a file can be written at ``path``; create nothing.

    Refused with one-line InputErrors: one of ``inputs`` (the command's input files), a folder
    where the file should go, a path under a file, a folder that does not exist (unless
    ``create_folder``: then it is created when written), a place this process may not write
    and, unless ``through_link`` (a results store, which is written in place, never renamed
    over), a symbolic link (:func:`write_target`). Returns the path to write.
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
    if not through_link:
        write_target(path, what)
    return target


def check_folder_files(
    folder: PathLike, names: Iterable[str], what: str, inputs: Iterable[PathLike | None] = ()
) -> None:
    """Before any work: none of the files ``names`` a command will write into ``folder`` (a
    figure's PNG, PDF and CSV, a sweep's checkpoints) is a link, a non-regular file, an input
    noted so far (:func:`write_target`) or one of ``inputs``."""
    given = list(inputs)
    for name in names:
        path = Path(folder) / name
        write_target(path, what)
        if path.exists():
            check_not_input(path, what, given)


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
