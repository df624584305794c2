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
except ImportError:  # pragma: no cover - interpreters without the C pickle
    from pickle import PickleError  # type: ignore[assignment]
    from pickle import load as pickle_load  # type: ignore[assignment]

__all__ = [
    "PickleError",
    "cache_dir",
    "cached",
    "pickle_load",
    "read_marshal",
    "sha256",
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


def read_marshal(path: str) -> Any:
    """The value marshalled in ``path``, or None where it is missing or damaged."""
    import marshal  # noqa: PLC0415 - built in

    try:
        with open(path, "rb") as fh:
            return marshal.loads(fh.read())  # one read: marshal.load reads in small pieces
    except (OSError, EOFError, ValueError, TypeError):
        return None


def write_marshal(path: str, value: Any) -> None:
    """Marshal ``value`` into ``path`` atomically; a failure only costs speed next time."""
    import marshal  # noqa: PLC0415
    import os  # noqa: PLC0415

    tmp = f"{path}.tmp{os.getpid()}"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as fh:
            marshal.dump(value, fh)
        os.replace(tmp, path)
    except (OSError, ValueError):
        import contextlib  # noqa: PLC0415

        with contextlib.suppress(OSError):
            os.unlink(tmp)
