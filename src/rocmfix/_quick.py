"""Start-up-cheap stand-ins with the same results: ``sha256`` and ``pickle_load``;
and :func:`cached`, a small content-keyed marshal cache for derived data.

``hashlib`` initialises OpenSSL (~3 ms) and ``pickle`` imports its pure-Python
half (~2 ms); a one-line ``rocmfix explain`` only needs a SHA-256 of a few
cache keys and one unpickling, which CPython's built-in modules do alone.
"""

from __future__ import annotations

try:
    from _sha256 import sha256  # CPython <= 3.11
except ImportError:  # pragma: no cover - other versions and interpreters
    try:
        from _sha2 import sha256  # type: ignore[no-redef]  # CPython 3.12+
    except ImportError:
        from hashlib import sha256  # type: ignore[no-redef]

try:
    from _pickle import PickleError
    from _pickle import load as pickle_load
    from _pickle import loads as pickle_loads
except ImportError:  # pragma: no cover - interpreters without the C pickle
    from pickle import PickleError  # type: ignore[assignment]
    from pickle import load as pickle_load  # type: ignore[assignment]
    from pickle import loads as pickle_loads  # type: ignore[assignment]

__all__ = [
    "PickleError",
    "cache_dir",
    "cached",
    "pickle_load",
    "pickle_loads",
    "read_cache",
    "read_marshal",
    "sha256",
    "write_atomic",
    "write_marshal",
]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def cache_dir() -> str:
    import os  # noqa: PLC0415

    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "rocmfix")


def cached(kind: str, key: bytes, build: Callable[[], Any]) -> Any:
    """``build()``, kept in ``<cache>/<kind>-<sha256(key)>.marshal`` for the next run.

    ``key`` must hold everything the result depends on (the inputs and a version of
    the code that derives it), so a changed input is a new file, never a stale hit.
    The result must be marshal-able (plain containers, str, bytes, numbers). A cache
    that cannot be read or written only costs speed.
    """
    import os  # noqa: PLC0415

    path = os.path.join(cache_dir(), f"{kind}-{sha256(key).hexdigest()[:32]}.marshal")
    value = read_marshal(path)
    if value is None:
        value = build()
        write_marshal(path, value)
    return value


MAX_CACHE_BYTES = 256 * 1024 * 1024
"""Largest cache file read back (the biggest, Hyperscan's database, is a few MB)."""


def read_cache(path: str) -> bytes | None:
    """The bytes of cache file ``path``, or None where it is missing, unreadable, larger
    than :data:`MAX_CACHE_BYTES` or not a regular file: a cache dir in which something
    put a FIFO or a link to ``/dev/zero`` must neither hang a run nor fill its memory."""
    import os  # noqa: PLC0415

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError):
        return None
    try:
        st = os.fstat(fd)
        if st.st_mode & 0o170000 != 0o100000 or st.st_size > MAX_CACHE_BYTES:
            return None  # not S_ISREG (stat is not imported for this), or too large
        with open(fd, "rb", closefd=False) as fh:
            data = fh.read(MAX_CACHE_BYTES + 1)  # one read: marshal.load reads in small pieces
        return data if len(data) <= MAX_CACHE_BYTES else None
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)


def read_marshal(path: str) -> Any:
    """The value marshalled in ``path``, or None where it is missing or damaged."""
    import marshal  # noqa: PLC0415 - built in

    data = read_cache(path)
    if data is None:
        return None
    try:
        return marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return None


def write_marshal(path: str, value: Any) -> None:
    """Marshal ``value`` into ``path`` atomically; a failure only costs speed next time."""
    import marshal  # noqa: PLC0415

    try:
        data = marshal.dumps(value)
    except ValueError:
        return
    write_atomic(path, data)


def write_atomic(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary beside it renamed over it; a
    failure (read-only or full cache) only costs speed next time."""
    import os  # noqa: PLC0415

    tmp = f"{path}.tmp{os.getpid()}"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError:
        import contextlib  # noqa: PLC0415

        with contextlib.suppress(OSError):
            os.unlink(tmp)
