"""Load, validate and merge knowledge-base files.

Order: the built-in ``kb/errors.yaml`` (the source checkout's copy when running
from a checkout, else the copy packaged in the wheel), then user files in
``$XDG_CONFIG_HOME/rocmfix/kb.d/*.yaml``, then ``ROCMFIX_KB`` / ``--kb`` paths.
A later entry with the same id replaces an earlier one.

A broken built-in KB is fatal (:class:`KbError`); a broken user file is
reported in ``KnowledgeBase.problems`` and skipped, never crashing a command.
Every error names the file, the line, the entry id and the field.

Parsing YAML costs tens of milliseconds, which matters for a one-shot
`rocmfix explain`; the parsed form is cached as a pickle keyed by each file's
path, size and mtime and by the rocmfix version, so an edited YAML is re-read.
"""

from __future__ import annotations

import os
from _collections_abc import Mapping  # collections.abc.Mapping itself, without collections

from rocmfix import __version__, _rx
from rocmfix._quick import cache_dir, pickle_loads, read_cache, sha256
from rocmfix.errors import KbError
from rocmfix.kb.model import Entry, KnowledgeBase

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from pathlib import Path


def __getattr__(name: str) -> object:
    # yaml is imported only when a KB file is parsed, not on a cache hit.
    if name in ("SCHEMA", "parse_kb_text"):
        from rocmfix.kb import schema  # noqa: PLC0415

        return getattr(schema, name)
    raise AttributeError(name)


_PLACEHOLDER_RE = _rx.compile(r"\{([a-z_][a-z0-9_]*)\}")
_MAX_FILE_BYTES = 8 * 1024 * 1024


def builtin_kb_path() -> Path:
    """The built-in KB file: the checkout's ``kb/errors.yaml`` or the packaged copy."""
    from pathlib import Path  # noqa: PLC0415 - load_kb itself goes without pathlib (start-up)

    return Path(_builtin_kb_file())


def _builtin_kb_file() -> str:
    here = os.path.realpath(__file__)
    checkout = os.path.join(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(here)))),
        "kb",
        "errors.yaml",
    )
    if os.path.isfile(checkout):
        return checkout
    packaged = os.path.join(os.path.dirname(__file__), "errors.yaml")
    if os.path.isfile(packaged):
        return packaged
    from importlib import resources  # noqa: PLC0415 - a zipped install

    return str(resources.files("rocmfix.kb").joinpath("errors.yaml"))


def user_kb_dir() -> Path:
    from pathlib import Path  # noqa: PLC0415

    return Path(_user_kb_dir())


def _user_kb_dir() -> str:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "rocmfix", "kb.d")


def read_kb_file(path: str | Path) -> tuple[Entry, ...]:
    """Read and validate one KB file. Raises KbError for any problem."""
    import errno  # noqa: PLC0415 - a cache hit reads no YAML

    from rocmfix import safeio  # noqa: PLC0415

    try:
        # Opened non-blocking and checked on the descriptor: a kb.d entry that is a
        # FIFO or a link to /dev/zero must not hang or exhaust memory.
        raw = safeio.read_bytes(path, _MAX_FILE_BYTES)
    except FileNotFoundError:
        raise KbError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise KbError(f"{path}: is a directory, expected a YAML file") from None
    except OSError as err:
        if err.errno == errno.EFBIG:
            raise KbError(f"{path}: too large for a KB file ({safeio.describe(err)})") from None
        raise KbError(f"{path}: cannot read ({safeio.describe(err)})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise KbError(f"{path}: not UTF-8 text") from None
    from rocmfix.kb.schema import parse_kb_text  # noqa: PLC0415 - yaml only on a cache miss

    return parse_kb_text(text, str(path))


# ----------------------------------------------------------------- caching


def _cache_key(paths: Sequence[str | Path]) -> str:
    h = sha256(f"{__version__}\0kb-cache-4".encode())
    for p in paths:
        try:
            st = os.stat(p)
            h.update(f"{p}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
        except OSError:
            h.update(f"{p}\0missing\0".encode())
    return h.hexdigest()[:32]


def _prune(folder: str, pattern: str, keep: str, max_age_s: float = 7 * 86400) -> None:
    """Drop stale cache files (older versions of an edited KB) so the cache stays small."""
    import time
    from pathlib import Path  # noqa: PLC0415 - only after writing a cache

    now = time.time()
    keep_path = Path(keep)
    for old in Path(folder).glob(pattern):
        try:
            if old != keep_path and now - old.stat().st_mtime > max_age_s:
                old.unlink()
        except OSError:
            continue


def _cached_read(path: str | Path) -> tuple[Entry, ...]:
    key = _cache_key([path])
    cache = os.path.join(cache_dir(), f"kb-{key}.pickle")
    data = read_cache(cache)  # a regular file of bounded size, or None
    if data is not None:
        try:
            entries = pickle_loads(data)  # noqa: S301 - our own cache file, keyed by content stamp
            if isinstance(entries, tuple):
                return entries
        except Exception:  # noqa: BLE001 - a damaged cache of ours: parse the YAML instead
            pass
    entries = read_kb_file(path)
    import pickle  # noqa: PLC0415 - only to write the cache

    try:
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        tmp = f"{cache[: -len('.pickle')]}.tmp{os.getpid()}"
        with open(tmp, "wb") as fh:
            pickle.dump(entries, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, cache)
        _prune(os.path.dirname(cache), "kb-*.pickle", keep=cache)
    except OSError:
        pass  # a read-only cache dir only costs speed
    return entries


# ----------------------------------------------------------------- public API


def _user_files(extra: Iterable[str | os.PathLike[str]]) -> list[Path]:
    files: list[Path] = []
    extra = list(extra)
    env = os.environ.get("ROCMFIX_KB")
    kbd = _user_kb_dir()
    if not (extra or env or os.path.isdir(kbd)):
        return files  # the common case: no user files, and no pathlib import for it
    from pathlib import Path  # noqa: PLC0415

    if os.path.isdir(kbd):
        files.extend(sorted(p for p in Path(kbd).iterdir() if p.suffix in (".yaml", ".yml")))
    if env:
        files.extend(Path(p) for p in env.split(os.pathsep) if p)
    files.extend(Path(p) for p in extra)
    return files


def load_kb(
    extra: Iterable[str | os.PathLike[str]] = (),
    *,
    builtin: Path | None = None,
    use_cache: bool = True,
) -> KnowledgeBase:
    """Load the built-in KB merged with the user's files.

    Args:
        extra: Additional KB files (``--kb``), merged last.
        builtin: Replace the built-in file (tests).
        use_cache: Use the parsed-KB cache.

    Raises:
        KbError: when the built-in KB is invalid. User files never raise.
    """
    base = builtin or _builtin_kb_file()
    entries = list(_cached_read(base) if use_cache else read_kb_file(base))
    sources, problems = [str(base)], []
    for path in _user_files(extra):
        try:
            extra_entries = _cached_read(path) if use_cache else read_kb_file(path)
        except KbError as err:
            problems.append(f"{err.message} (file skipped)")
            continue
        sources.append(str(path))
        by_id = {e.id: i for i, e in enumerate(entries)}
        for entry in extra_entries:
            if entry.id in by_id:
                entries[by_id[entry.id]] = entry
            else:
                entries.append(entry)
    return KnowledgeBase(entries=tuple(entries), sources=tuple(sources), problems=tuple(problems))


def placeholders(value: object) -> set[str]:
    """Names of ``{placeholders}`` used in a fix value (strings, lists, mappings)."""
    if isinstance(value, str):
        return set(_PLACEHOLDER_RE.findall(value))
    if isinstance(value, Mapping):
        return set().union(*(placeholders(v) for v in value.values())) if value else set()
    if isinstance(value, (list, tuple)):
        return set().union(*(placeholders(v) for v in value)) if value else set()
    return set()
