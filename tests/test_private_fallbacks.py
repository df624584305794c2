"""Each private CPython internal the one-line explain leans on for speed has a fallback.

``rocmfix explain --json`` uses ``_json``'s C encoder, ``atexit._run_exitfuncs``, ``_sre``
(with ``re``'s private compiler), importlib's ``MAGIC_NUMBER``, ``_sha256``/``_sha2`` and
``_pickle``. Another interpreter or version may lack any of them or behave otherwise: with
each one taken away (or made to fail) the command must still print the very same bytes,
exit with the same code and say nothing on stderr, on an empty cache, on the cache that
run left, and on a cache that a normal run wrote.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
LINE = "RuntimeError: HIP error: hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"
ARGV = ["explain", "--json", "--top", "3", LINE]

# argv[1]: Python run before rocmfix is imported (the sabotage); the rest: rocmfix's argv.
_WRAP = """
import sys
exec(sys.argv[1])
sys.argv = ["rocmfix", *sys.argv[2:]]
from rocmfix.cli import entry
raise SystemExit(entry())
"""

# Fails only when rocmfix._rx calls it: re itself keeps working.
_FROM_RX = """
def _fail_from_rx(module, name):
    real = getattr(module, name)
    def wrapper(*args, **kwargs):
        if sys._getframe(1).f_globals.get("__name__") == "rocmfix._rx":
            raise RuntimeError("not here")
        return real(*args, **kwargs)
    setattr(module, name, wrapper)
"""

SABOTAGE = {
    # _json: json falls back to its pure-Python encoder, and so does rocmfix
    "no _json": "sys.modules['_json'] = None",
    # json is imported first so that json itself keeps the real encoder
    "make_encoder raises": (
        "import json, _json\n"
        "def boom(*a, **k):\n    raise RuntimeError('boom')\n"
        "_json.make_encoder = boom"
    ),
    "make_encoder writes otherwise": (
        "import json, _json\n_json.make_encoder = lambda *a: (lambda o, i: iter(['{}']))"
    ),
    "no encode_basestring": "import json, _json\ndel _json.encode_basestring",
    "no atexit._run_exitfuncs": "import atexit\ndel atexit._run_exitfuncs",
    # _sre (after re, whose own import checks these)
    "no _sre.MAGIC": "import re, _sre\ndel _sre.MAGIC",
    # as rocmfix sees it (re keeps its own reference to the real module)
    "another _sre code size": (
        "import re, _sre, types\n"
        "fake = types.ModuleType('_sre')\nvars(fake).update(vars(_sre))\nfake.CODESIZE = 2\n"
        "sys.modules['_sre'] = fake"
    ),
    "_sre.compile refuses rocmfix's code": (
        _FROM_RX + "import re, _sre\n_fail_from_rx(_sre, 'compile')"
    ),
    "re's private compiler differs": (
        _FROM_RX + "import re\n"
        "compiler = getattr(re, '_compiler', None)\n"
        "if compiler is None:\n    import sre_compile as compiler  # Python 3.10\n"
        "_fail_from_rx(compiler, '_code')"
    ),
    "no importlib MAGIC_NUMBER": "sys.modules['_frozen_importlib_external'] = None",
    "no _sha256 or _sha2": "sys.modules['_sha256'] = None\nsys.modules['_sha2'] = None",
    "no _pickle": "sys.modules['_pickle'] = None",
}


def _run(cache: Path, sabotage: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC), "XDG_CACHE_HOME": str(cache)}
    env.pop("ROCMFIX_ENGINE", None)
    return subprocess.run(
        [sys.executable, "-c", _WRAP, sabotage, *ARGV],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """The output of an untouched run, and the cache that such runs leave."""
    cache = tmp_path_factory.mktemp("warm")
    first, second = _run(cache, "pass"), _run(cache, "pass")
    assert first.returncode == second.returncode == 0, first.stderr
    assert first.stdout == second.stdout and first.stdout.startswith(
        '{"schema": "rocmfix.explain/1"'
    )
    assert {p.name.split("-")[0] for p in (cache / "rocmfix").iterdir()} >= {"re", "records", "kb"}
    return first.stdout, cache


@pytest.mark.parametrize("name", list(SABOTAGE))
def test_the_answer_is_byte_identical_without_the_internal(
    name: str, reference: tuple[str, Path], tmp_path: Path
) -> None:
    expected, warm = reference
    fresh = tmp_path / "fresh"
    shutil.copytree(warm, tmp_path / "warm")
    for cache in (fresh, fresh, tmp_path / "warm"):  # empty, then as it left it; a normal run's
        run = _run(cache, SABOTAGE[name])
        assert run.stderr == "", run.stderr
        assert run.returncode == 0
        assert run.stdout == expected


def test_without_run_exitfuncs_the_exit_handlers_still_write_the_caches(tmp_path: Path) -> None:
    run = _run(tmp_path, SABOTAGE["no atexit._run_exitfuncs"])
    assert run.returncode == 0 and run.stdout.endswith("}\n")
    kinds = {p.name.split("-")[0] for p in (tmp_path / "rocmfix").iterdir()}
    assert {"records", "re", "ranker", "symptoms", "kb", "needles"} <= kinds, kinds


def test_a_missing_internal_means_no_cache_rather_than_a_wrong_one(tmp_path: Path) -> None:
    # without the SRE magic or the bytecode magic nothing keys those caches: none is written
    _run(tmp_path / "sre", SABOTAGE["no _sre.MAGIC"])
    assert not list((tmp_path / "sre" / "rocmfix").glob("re-*"))
    _run(tmp_path / "pyc", SABOTAGE["no importlib MAGIC_NUMBER"])
    assert not list((tmp_path / "pyc" / "rocmfix").glob("records-*"))
