"""Start-up-cheap stand-ins with the same results: ``sha256`` and ``pickle_load``.

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

__all__ = ["PickleError", "pickle_load", "sha256"]
