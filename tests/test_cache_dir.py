"""Every cache rocmfix keeps lives in one directory, ``rocmfix._quick.cache_dir()``
(``$XDG_CACHE_HOME/rocmfix``, else ``~/.cache/rocmfix``), and a cache directory that
cannot be used (read-only, a file in its place, a link to elsewhere, entries that are not
files) only costs speed: the answer stays byte for byte the same, with no traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rocmfix import _quick

SRC = Path(__file__).resolve().parents[1] / "src"
LINE = "RuntimeError: HIP error: hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"
# every cache a one-line explain writes; a log file also builds the scan engine (hs)
KINDS = {"records", "re", "ranker", "symptoms", "kb", "needles"}
try:
    import hyperscan  # noqa: F401

    FILE_KINDS = KINDS | {"hs"}
except ImportError:  # pragma: no cover - no Hyperscan wheel here: no database to cache
    FILE_KINDS = KINDS


def _explain(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in env.items() if k != "ROCMFIX_ENGINE"}
    return subprocess.run(
        [sys.executable, "-m", "rocmfix", "explain", "--json", *argv],
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": str(SRC)},
        timeout=60,  # a FIFO in the cache must not hang a run
    )


def _kinds(folder: Path) -> set[str]:
    return {p.name.split("-")[0] for p in folder.iterdir()}


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("log") / "train.log"
    path.write_text("epoch 1\n" + LINE + "\n")
    return path


@pytest.fixture(scope="module")
def expected(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The output with a usable cache (the same, filled or not)."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path_factory.mktemp("ok"))}
    runs = [_explain(env, LINE) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0] and runs[0].stdout == runs[1].stdout
    return runs[0].stdout


def test_cache_dir_is_xdg_cache_home_else_home_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", "/x/y")
    assert _quick.cache_dir() == os.path.join("/x/y", "rocmfix")
    monkeypatch.setenv("XDG_CACHE_HOME", "")  # empty: as unset
    monkeypatch.setenv("HOME", "/h")
    assert _quick.cache_dir() == os.path.join("/h", ".cache", "rocmfix")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert _quick.cache_dir() == os.path.join("/h", ".cache", "rocmfix")


def test_every_cache_honours_a_custom_xdg_cache_home(tmp_path: Path, log: Path) -> None:
    home, xdg = tmp_path / "home", tmp_path / "elsewhere"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(xdg)}
    assert _explain(env, LINE).returncode == 0
    assert _explain(env, "--file", str(log)).returncode == 0
    assert _kinds(xdg / "rocmfix") >= FILE_KINDS
    assert not (home / ".cache").exists()  # nothing went to the default place
    # and with it unset, they go to ~/.cache/rocmfix (a one-line run: no second hs compile)
    env.pop("XDG_CACHE_HOME")
    assert _explain(env, LINE).returncode == 0
    assert _kinds(home / ".cache" / "rocmfix") >= KINDS


def _read_only(cache: Path) -> None:
    (cache / "rocmfix").mkdir(parents=True)
    (cache / "rocmfix").chmod(0o555)
    if os.access(cache / "rocmfix", os.W_OK):
        pytest.skip("running as root: a read-only mode does not stop writes")


SETUPS = {
    "a read-only directory": _read_only,
    "a file where the directory should be": lambda c: (
        c.mkdir(),
        (c / "rocmfix").write_text("not a directory"),
    ),
    "XDG_CACHE_HOME itself a file": lambda c: c.write_text("not a directory"),
    "a dangling symlink": lambda c: (c.mkdir(), (c / "rocmfix").symlink_to(c / "gone" / "x")),
    "a symlink to a file": lambda c: (
        c.mkdir(),
        (c / "target").write_text("x"),
        (c / "rocmfix").symlink_to(c / "target"),
    ),
    "a symlink to another directory": lambda c: (
        (c / "real").mkdir(parents=True),
        (c / "rocmfix").symlink_to(c / "real"),
    ),
}


# A log file also builds the scan engine, whose Hyperscan database takes seconds to compile
# on every run that cannot cache it: these runs take the one-line path (six of the seven
# caches); the database's own reader is tested below.
@pytest.mark.parametrize("setup", list(SETUPS))
def test_an_unusable_cache_dir_leaves_the_answer_unchanged(
    setup: str, tmp_path: Path, expected: str
) -> None:
    cache = tmp_path / "cache"
    SETUPS[setup](cache)
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    for _ in range(2):  # whatever the first run could or could not write, the second reads
        run = _explain(env, LINE)
        assert run.stderr == "", run.stderr
        assert (run.returncode, run.stdout) == (0, expected)
    if setup == "a symlink to another directory":
        assert _kinds(cache / "real") >= KINDS  # followed, as the user set it up


@pytest.mark.parametrize("kind", ["fifo", "directory", "garbage"])
def test_cache_entries_that_are_not_our_files_are_ignored(
    kind: str, tmp_path: Path, expected: str
) -> None:
    cache = tmp_path / "cache"
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    _explain(env, LINE)  # fill the caches
    for entry in list((cache / "rocmfix").iterdir()):
        entry.unlink()
        if kind == "fifo":  # opened for reading as before, it would wait for a writer forever
            os.mkfifo(entry)
        elif kind == "directory":
            entry.mkdir()
        else:
            entry.write_bytes(b"\x00garbage\xff" * 100)
    run = _explain(env, LINE)
    assert run.stderr == "", run.stderr
    assert (run.returncode, run.stdout) == (0, expected)


@pytest.mark.parametrize("kind", ["fifo", "directory", "garbage", "a file as the dir"])
def test_a_hyperscan_database_cache_that_is_not_ours_is_rebuilt(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hs = pytest.importorskip("hyperscan")
    from rocmfix import extract

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    items = [(b"hipError\\w+", 0, "hipError\\w+", False, 0)]
    path = Path(extract._db_cache_path(hs, items))
    assert path.parent == Path(_quick.cache_dir())
    if kind == "a file as the dir":
        path.parent.parent.mkdir(parents=True, exist_ok=True)
        path.parent.write_text("x")
    else:
        path.parent.mkdir(parents=True)
        {"fifo": os.mkfifo, "directory": os.mkdir}.get(kind, lambda p: p.write_bytes(b"junk"))(path)
    assert extract._load_cached_db(hs, items) is None  # at once, for a FIFO too
    db = hs.Database()
    db.compile(expressions=[items[0][0]], ids=[0], flags=[0])
    extract._store_cached_db(hs, items, db)  # fails quietly or replaces the entry
    if kind in ("fifo", "garbage"):
        assert extract._load_cached_db(hs, items) is not None


def test_read_cache_reads_only_regular_files_of_bounded_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "ok").write_bytes(b"12345")
    assert _quick.read_cache(str(tmp_path / "ok")) == b"12345"
    assert _quick.read_cache(str(tmp_path / "missing")) is None
    assert _quick.read_cache(str(tmp_path)) is None  # a directory
    os.mkfifo(tmp_path / "fifo")
    assert _quick.read_cache(str(tmp_path / "fifo")) is None  # returns at once
    monkeypatch.setattr(_quick, "MAX_CACHE_BYTES", 4)
    assert _quick.read_cache(str(tmp_path / "ok")) is None  # too large
    assert _quick.read_marshal(str(tmp_path / "ok")) is None


def test_a_cache_write_that_fails_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "ro"
    target.mkdir()
    _quick.write_marshal(str(target / "x" / "y.marshal"), {"a": 1})  # x/ is created
    assert _quick.read_marshal(str(target / "x" / "y.marshal")) == {"a": 1}
    (target / "file").write_text("")
    _quick.write_marshal(str(target / "file" / "y.marshal"), {"a": 1})  # a file as the dir
    assert sorted(p.name for p in target.iterdir()) == ["file", "x"]
    shutil.rmtree(target)


class _RaisesOnLoad:
    def __reduce__(self) -> tuple[object, ...]:
        import operator

        return (operator.getitem, ({}, "missing"))  # unpickling raises KeyError


def test_a_kb_cache_that_fails_to_unpickle_in_any_way_is_parsed_anew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pickle

    from rocmfix.kb.loader import load_kb

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    entries = load_kb([]).entries
    (stored,) = (tmp_path / "rocmfix").glob("kb-*.pickle")
    stored.write_bytes(pickle.dumps(_RaisesOnLoad()))
    assert load_kb([]).entries == entries
