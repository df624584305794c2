"""File operations the fixes rely on: atomic writes that keep mode and owner.

A startup file is never half written: the new content goes to a temporary file
in the same directory, is flushed to disk, gets the old file's mode and owner,
and then replaces the old file with one ``rename``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
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
    """Move a file or directory, creating the destination's parent.

    A rename when both sides share a file system. Across file systems the tree
    is copied to a temporary name beside ``dst`` (modes, times and, where
    permitted, owners kept), renamed into place, and only then is ``src``
    removed; a failed copy removes its partial copy and leaves ``src`` as it
    was.
    """
    dst_p = Path(dst)
    dst_p.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        os.rename(src, dst)
        return
    except OSError as err:
        if err.errno != errno.EXDEV:
            raise
    tmp = dst_p.with_name(f".{dst_p.name}.partial-{os.getpid()}")
    try:
        if os.path.isdir(src) and not os.path.islink(src):
            shutil.copytree(src, tmp, symlinks=True, copy_function=_copy_keep_owner)
            _chown_like(src, tmp)
        else:
            _copy_keep_owner(str(src), str(tmp))
    except (OSError, shutil.Error) as err:
        _discard(tmp)
        raise OSError(_first_errno(err), f"copying {src} to {dst} failed: {_reason(err)}") from None
    os.rename(tmp, dst)
    if os.path.isdir(src) and not os.path.islink(src):
        shutil.rmtree(src)
    else:
        os.unlink(src)


def _copy_keep_owner(src: str, dst: str) -> None:
    if os.path.islink(src):
        os.symlink(os.readlink(src), dst)
        return
    shutil.copy2(src, dst)
    _chown_like(src, dst)


def _chown_like(src: str | Path, dst: str | Path) -> None:
    st = os.lstat(src)
    if (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
        # Not root: the copy stays ours, as any copy we could make would.
        with contextlib.suppress(PermissionError):
            os.lchown(dst, st.st_uid, st.st_gid)
    if os.path.isdir(dst) and not os.path.islink(dst):
        for root, dirs, _ in os.walk(dst):
            for d in dirs:
                rel = os.path.relpath(os.path.join(root, d), dst)
                s_st = os.lstat(os.path.join(src, rel))
                if (s_st.st_uid, s_st.st_gid) != (os.geteuid(), os.getegid()):
                    with contextlib.suppress(PermissionError):
                        os.lchown(os.path.join(root, d), s_st.st_uid, s_st.st_gid)


def _discard(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _first_errno(err: BaseException) -> int:
    if isinstance(err, OSError) and err.errno:
        return err.errno
    if isinstance(err, shutil.Error) and err.args and isinstance(err.args[0], list):
        for _src, _dst, why in err.args[0]:
            m = re.search(r"\[Errno (\d+)\]", str(why))
            if m:
                return int(m.group(1))
    return errno.EIO


def _reason(err: BaseException) -> str:
    if isinstance(err, shutil.Error) and err.args and isinstance(err.args[0], list):
        rows = err.args[0]
        first = (
            re.sub(r"^\[Errno \d+\] ", "", str(rows[0][2])) if rows and len(rows[0]) == 3 else "?"
        )
        more = f" (and {len(rows) - 1} more)" if len(rows) > 1 else ""
        return f"{first}{more}"
    return getattr(err, "strerror", None) or str(err)


def remove(path: str | Path) -> None:
    Path(path).unlink(missing_ok=True)


def missing_dirs(path: str | Path) -> tuple[str, ...]:
    """Ancestors of ``path`` that do not exist yet, outermost first."""
    out: list[str] = []
    parent = Path(path).parent
    while not os.path.lexists(parent) and parent != parent.parent:
        out.append(str(parent))
        parent = parent.parent
    return tuple(reversed(out))


def remove_new_dirs(dirs: tuple[str, ...]) -> None:
    """Remove directories an undone file creation made, innermost first, if empty."""
    for d in reversed(dirs):
        try:
            os.rmdir(d)
        except OSError:
            return
