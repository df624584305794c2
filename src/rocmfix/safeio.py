"""Bounded, non-blocking reads of files a user (or an attacker) names.

A path that rocmfix reads may be a FIFO that never opens, ``/dev/zero`` that
never ends, a symlink loop or a 2 GB log. Every reader here opens with
``O_NONBLOCK`` (so a FIFO cannot block the open), checks ``S_ISREG`` on the
*opened* descriptor (so a symlink swapped after a check changes nothing) and
never returns more than a stated number of bytes. Failures are ``OSError``
with a ``strerror`` written for people, so callers keep their one-line
``cannot read X (reason)`` messages.
"""

from __future__ import annotations

import errno
import fcntl
import io
import os
import stat

TYPE_CHECKING = False  # typing is not imported at run time (start-up cost)
if TYPE_CHECKING:
    from typing import BinaryIO


MiB = 1024 * 1024
LOG_MAX_DECOMPRESSED = 4 * 1024 * MiB
"""A gzip log stops here: no real training log is larger, a gzip bomb is."""


def not_regular(path: str | os.PathLike[str], mode: int) -> OSError:
    kind = (
        "a directory"
        if stat.S_ISDIR(mode)
        else "a FIFO"
        if stat.S_ISFIFO(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "not a regular file"
    )
    code = errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL
    err = OSError(code, f"is {kind}, not a regular file", str(path))
    return err


def open_regular(path: str | os.PathLike[str], *, nofollow: bool = False) -> BinaryIO:
    """Open ``path`` for reading if (after following links) it is a regular file.

    ``nofollow`` refuses a symlink as the last component (``ELOOP``).
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (os.O_NOFOLLOW if nofollow else 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise not_regular(path, st.st_mode)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: str | os.PathLike[str], limit: int, *, nofollow: bool = False) -> bytes:
    """Whole content of a regular file; ``OSError(EFBIG)`` when it holds more than ``limit``."""
    with open_regular(path, nofollow=nofollow) as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"larger than {_size(limit)}", str(path))
    return data


def read_head(path: str | os.PathLike[str], limit: int) -> tuple[bytes, bool]:
    """Up to ``limit`` bytes of a regular file, and whether it was cut there."""
    with open_regular(path) as fh:
        data = fh.read(limit + 1)
    return data[:limit], len(data) > limit


def read_head_tail(fh: BinaryIO, head: int, tail: int) -> tuple[bytes, int]:
    """All of ``fh`` when it holds at most ``head + tail`` bytes, else its first ``head``
    and last ``tail`` bytes, with the number of bytes left out between them.

    Memory stays under ``head + 2 * tail``: a seekable file is not read in the middle
    at all, a pipe is read through with only its latest ``tail`` bytes kept.
    """
    first = fh.read(head + tail)
    if len(first) < head + tail:
        return first, 0
    buf = bytearray(first[head:])
    gap = 0
    try:
        seekable = fh.seekable()
    except (OSError, ValueError):
        seekable = False
    if seekable:
        pos = fh.tell()
        end = fh.seek(0, os.SEEK_END)
        start = max(pos, end - tail)
        fh.seek(start)
        gap = start - pos
    skipped = 0
    while chunk := fh.read(1 << 20):
        buf += chunk
        if len(buf) > tail:
            drop = len(buf) - tail
            del buf[:drop]
            skipped += drop
    return first[:head] + bytes(buf), skipped + gap


class CappedReader(io.RawIOBase):
    """A binary stream that raises ``OSError(EFBIG)`` once more than ``limit`` bytes came out."""

    def __init__(self, inner: BinaryIO, limit: int, name: str) -> None:
        self.inner, self.limit, self.name, self.seen = inner, limit, name, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.inner.read(len(buffer))
        self.seen += len(data)
        if self.seen > self.limit:
            raise OSError(errno.EFBIG, f"decompresses to more than {_size(self.limit)}", self.name)
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self.inner.close()
        super().close()


class Utf16Reader(io.RawIOBase):
    """UTF-16 text (with its BOM) read as UTF-8 bytes, so a Windows log scans like any other.

    Windows PowerShell 5.1 writes redirected output (``python train.py *> log.txt``)
    as UTF-16 LE with a BOM; the scanners read UTF-8.
    """

    def __init__(self, inner: BinaryIO) -> None:
        import codecs  # noqa: PLC0415 - only for UTF-16 input

        self.inner = inner
        self.decoder = codecs.getincrementaldecoder("utf-16")(errors="replace")
        self.pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        while not self.pending:
            raw = self.inner.read(max(2, len(buffer) // 2 * 2))
            self.pending = self.decoder.decode(raw, final=not raw).encode("utf-8", "surrogatepass")
            if not raw:
                break
        n = min(len(buffer), len(self.pending))
        buffer[:n], self.pending = self.pending[:n], self.pending[n:]
        return n

    def close(self) -> None:
        self.inner.close()
        super().close()


_MAGIC = ((b"\x1f\x8b", "gzip"), (b"\xfd7zXZ\x00", "xz"), (b"BZh", "bz2"))


def open_stream(
    fh: BinaryIO, name: str = "<stream>", max_decompressed: int = LOG_MAX_DECOMPRESSED
) -> BinaryIO:
    """``fh`` itself, or gzip/xz/bzip2 data decompressed on the fly and capped.

    The first bytes are peeked, never consumed, so this works on pipes too.
    """
    if not hasattr(fh, "peek"):
        fh = io.BufferedReader(fh, buffer_size=1 << 16)  # type: ignore[arg-type]
    try:
        magic = fh.peek(6)[:6]  # type: ignore[attr-defined]
    except (OSError, ValueError):
        return fh
    if magic.startswith((b"\xff\xfe", b"\xfe\xff")):  # a UTF-16 BOM
        return io.BufferedReader(Utf16Reader(fh), 1 << 20)  # type: ignore[return-value]
    for sig, kind in _MAGIC:
        if magic.startswith(sig) and (kind != "bz2" or magic[3:4].isdigit()):
            if kind == "gzip":
                import gzip  # noqa: PLC0415 - only for compressed input

                inner: BinaryIO = gzip.GzipFile(fileobj=fh, mode="rb")  # type: ignore[assignment]
            elif kind == "xz":
                import lzma  # noqa: PLC0415 - rare

                inner = lzma.LZMAFile(fh)  # type: ignore[assignment]  # noqa: SIM115 - returned open
            else:
                import bz2  # noqa: PLC0415 - rare

                inner = bz2.BZ2File(fh)  # type: ignore[assignment]  # noqa: SIM115 - returned open
            capped = CappedReader(inner, max_decompressed, name)
            return io.BufferedReader(capped, 1 << 20)  # type: ignore[return-value]
    return fh


def open_log(
    path: str | os.PathLike[str], max_decompressed: int = LOG_MAX_DECOMPRESSED
) -> BinaryIO:
    """A regular log file, plain or compressed (gzip, xz, bzip2), output capped."""
    return open_stream(open_regular(path), str(path), max_decompressed)


def replace_target(path: str | os.PathLike[str]) -> str:
    """The file that writing ``path`` by rename replaces: ``path`` itself, or the file its
    symlink names (so the link stays a link).

    Raises:
        OSError: ``path`` exists and is not a regular file (a FIFO, a device, a socket, a
            directory): renaming a temporary over it would replace the node itself, as root
            even ``/dev/full``; or its state cannot be read.
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return os.fspath(path)
    if not stat.S_ISREG(mode):
        raise not_regular(path, mode)
    return os.path.realpath(path) if os.path.islink(path) else os.fspath(path)


def describe(err: OSError) -> str:
    """``strerror`` of an OSError, or its text when it has none."""
    return err.strerror or str(err)


def _size(n: int) -> str:
    return f"{n // MiB} MiB" if n >= MiB else f"{n} bytes"


def is_within(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bool:
    """Whether ``path``, with every symlink resolved, lies inside ``root`` (resolved too)."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


__all__ = [
    "CappedReader",
    "LOG_MAX_DECOMPRESSED",
    "open_stream",
    "describe",
    "is_within",
    "open_log",
    "open_regular",
    "read_bytes",
    "read_head",
]
