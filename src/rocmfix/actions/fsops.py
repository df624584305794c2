"""File operations the fixes rely on: atomic writes that keep mode and owner.

A startup file is never half written: the new content goes to a temporary file
in the same directory, is flushed to disk, gets the old file's mode and owner,
and then replaces the old file with one ``rename``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path


def read_bytes(path: str | Path) -> bytes | None:
    """Content of ``path``, or None when it does not exist."""
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        return None


def atomic_write(path: str | Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one rename, keeping mode and owner."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        old = target.stat()
    except FileNotFoundError:
        old = None
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".rocmfix")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if old is not None:
            os.chmod(tmp, old.st_mode & 0o7777)
            if (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
                os.chown(tmp, old.st_uid, old.st_gid)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def move(src: str | Path, dst: str | Path) -> None:
    """Move a file or directory, creating the destination's parent."""
    Path(dst).parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(src), str(dst))


def remove(path: str | Path) -> None:
    Path(path).unlink(missing_ok=True)
