"""The one-line `rocmfix explain --json` start-up: what it imports, and that each
shortcut it takes (its own argument reader, JSON writer, exit codes, regex flags,
the ranker's cached index) gives what the slower general path gives."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rocmfix import _rx
from rocmfix.commands import explain as ex
from rocmfix.errors import ExitCode
from rocmfix.kb import ranker as rk

LINE = "RuntimeError: HIP error: hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"
SRC = Path(__file__).resolve().parents[1] / "src"

# What the cold path must not load: each costs a one-line explain a millisecond or more
# (argparse with gettext and locale, json, dataclasses with inspect, typing, pathlib,
# hashlib with OpenSSL, pickle's Python half, yaml on a cache hit, rapidfuzz when no
# symptom can score), or must never be loaded at all (textual, rich, torch). functools
# and collections come with the C modules _pickle and array, which the caches need.
NOT_ON_THE_COLD_PATH = {
    "argparse",
    "gettext",
    "locale",
    "json",
    "json.decoder",
    "dataclasses",
    "inspect",
    "typing",
    "pathlib",
    "hashlib",
    "pickle",
    "yaml",
    "rapidfuzz",
    "contextlib",
    "importlib.util",
    "bisect",
    "textual",
    "rich",
    "torch",
    "numpy",
}
# re (with enum) is loaded by the console script pip writes (`import re` for argv[0]),
# but rocmfix itself does without it once its caches are warm (`python -m rocmfix` and
# in-process callers).
NOT_FROM_ROCMFIX = {"re", "enum"}

_PROBE = """
import io, sys
base = set(sys.modules)
from rocmfix.cli import main
out = io.StringIO()
stdout, sys.stdout = sys.stdout, out
try:
    code = main(sys.argv[1:])
finally:
    sys.stdout = stdout
loaded = sorted(set(sys.modules) - base)
import json
print(json.dumps({"code": code, "out": out.getvalue(), "modules": loaded}))
"""


def _cold(tmp_path: Path, *argv: str) -> dict[str, object]:
    env = {
        **os.environ,
        "PYTHONPATH": str(SRC),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    run = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    return json.loads(run.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def test_a_one_line_explain_imports_none_of_the_slow_modules(tmp_path: Path) -> None:
    first = _cold(tmp_path, "explain", "--json", LINE)  # fills the caches
    again = _cold(tmp_path, "explain", "--json", LINE)
    assert first["out"] == again["out"] and again["code"] == 0
    assert json.loads(str(again["out"]))["matches"][0]["id"] == "no-binary-for-gpu"
    loaded = set(again["modules"])  # type: ignore[arg-type]
    assert not loaded & NOT_ON_THE_COLD_PATH, sorted(loaded & NOT_ON_THE_COLD_PATH)
    assert not loaded & NOT_FROM_ROCMFIX, sorted(loaded & NOT_FROM_ROCMFIX)
    # and the same command in Chinese, with --top and --lang= spelled both ways
    zh = _cold(tmp_path, "explain", "--lang", "zh", "--top", "1", "--json", LINE)
    assert not set(zh["modules"]) & (NOT_ON_THE_COLD_PATH | NOT_FROM_ROCMFIX)  # type: ignore[arg-type]
    assert len(json.loads(str(zh["out"]))["matches"]) == 1


def test_an_unusual_command_line_still_goes_through_argparse(tmp_path: Path) -> None:
    # an abbreviation argparse accepts, and text split by an option, which it refuses
    abbrev = _cold(tmp_path, "explain", "--js", LINE)
    assert abbrev["code"] == 0 and "argparse" in abbrev["modules"]  # type: ignore[operator]
    assert json.loads(str(abbrev["out"]))["matches"][0]["id"] == "no-binary-for-gpu"


def _argparse(argv: list[str]) -> dict[str, object] | None:
    parser = argparse.ArgumentParser(prog="rocmfix explain", exit_on_error=False)
    ex.configure(parser)
    try:
        return vars(parser.parse_args(argv))
    except (SystemExit, argparse.ArgumentError):
        return None


WORDS = [
    "--json", "--lang", "--lang=zh", "--lang=fr", "en", "zh", "fr", "--top", "2", "0", "07",
    "-1", "x", "hipErrorNoBinaryForGpu", "two words", "", "-", "--", "--file", "--kb", "--check",
    "--js", "-h", "--top=2", "--python", "١",
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=7))
def test_quick_args_reads_a_command_line_as_argparse_does(argv: list[str]) -> None:
    quick = ex.quick_args(argv)
    if quick is not None:
        assert vars(quick) == _argparse(argv), argv


@pytest.mark.parametrize(
    "argv",
    [
        ["--json", LINE],
        [LINE, "--json"],
        ["--json", "hipErrorNoBinaryForGpu", "on", "gfx1032"],
        ["--lang", "zh", "--json", LINE],
        ["--lang=en", LINE],
        ["--top", "5", "--json", LINE],
        [LINE],
        ["--json"],
    ],
)
def test_quick_args_takes_the_plain_forms(argv: list[str]) -> None:
    quick = ex.quick_args(argv)
    assert quick is not None and vars(quick) == _argparse(argv)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_dumps_writes_what_json_dumps_writes(value: object) -> None:
    assert ex.dumps(value) == json.dumps(value, ensure_ascii=False)


def test_dumps_refuses_what_json_refuses() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        ex.dumps({"a": object()})


def test_exit_codes_are_the_ints_scripts_see() -> None:
    assert [int(c) for c in (ExitCode.OK, ExitCode.PROBLEMS_FOUND, ExitCode.USAGE)] == [0, 1, 2]
    assert ExitCode.INTERRUPTED == 130 and ExitCode.USAGE.name == "USAGE"
    assert ExitCode.USAGE.value == 2 and str(ExitCode.USAGE) == "2" and f"{ExitCode.OK}" == "0"
    assert isinstance(ExitCode.OK, int) and {ExitCode.USAGE: 1}[2] == 1


def test_rx_flags_and_escape_are_res() -> None:
    assert (_rx.IGNORECASE, _rx.MULTILINE, _rx.DOTALL, _rx.DEBUG) == (
        re.IGNORECASE,
        re.MULTILINE,
        re.DOTALL,
        re.DEBUG,
    )
    every = "".join(chr(c) for c in range(0, 300)) + "日本 ${x}.*"
    assert _rx.escape(every) == re.escape(every)
    assert _rx.error is re.error


def test_main_leaves_the_garbage_collector_as_it_found_it() -> None:
    import contextlib
    import gc
    import io

    from rocmfix.cli import main

    assert gc.isenabled()
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["explain", "--json", LINE]) == 0
    assert gc.isenabled()
    gc.disable()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            main(["explain", "--json", LINE])
        assert not gc.isenabled()
    finally:
        gc.enable()


# ----------------------------------------------------------------- the ranker's index


@pytest.fixture(scope="module")
def plain() -> rk.Ranker:
    return rk.read_artifact(rk._artifact_file())


def test_the_index_finds_every_feature_and_nothing_else(plain: rk.Ranker, tmp_path: Path) -> None:
    indexed = rk.read_artifact(rk._artifact_file())
    assert indexed.use_index(indexed.index_sections())
    vocab = plain._vocab
    assert all(indexed._lookup(f) == i for i, f in enumerate(vocab))
    for missing in ("", "w:", vocab[0] + "\0", vocab[-1] + "z", "c:日本語", "w:" + "x" * 300):
        assert indexed._lookup(missing) == plain._lookup(missing) == -1


def test_the_cached_index_gives_the_same_scores_and_cases(
    plain: rk.Ranker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = rk._artifact_file()
    built = rk.load_with_index(path)  # a miss: built and stored
    stored = list((tmp_path / "rocmfix").glob("ranker-*.marshal"))
    assert len(stored) == 1
    cached = rk.load_with_index(path)  # a hit
    assert cached._slots is not None and cached._header == plain._header
    text = "hipErrorNoBinaryForGpu: Unable to find code object for all current devices on gfx1032"
    assert cached.probabilities(text) == built.probabilities(text) == plain.probabilities(text)
    for label in plain.classes:
        assert cached.similar(text, label) == plain.similar(text, label)


def test_a_changed_artifact_never_meets_an_old_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    blob = Path(rk._artifact_file()).read_bytes()
    head = rk._head_bytes(blob)
    art = tmp_path / "ranker.bin"
    art.write_bytes(blob)
    stamp = art.stat().st_mtime_ns
    assert rk.load_with_index(str(art)).meta == json.loads(head)["meta"]
    # Same size, same mtime, another header: the index's key matches, its header does not.
    data = json.loads(head)
    data["meta"]["trained_on"] = data["meta"]["trained_on"][::-1]
    new_head = json.dumps(data, sort_keys=True).encode()
    assert len(new_head) == len(head)
    n = len(rk.MAGIC) + 4
    art.write_bytes(blob[:n] + new_head + blob[n + len(head) :])
    os.utime(art, ns=(stamp, stamp))
    again = rk.load_with_index(str(art))
    assert again.meta["trained_on"] == data["meta"]["trained_on"]
    # A damaged cache file is rebuilt, never trusted.
    for cache in (tmp_path / "cache" / "rocmfix").glob("ranker-*.marshal"):
        cache.write_bytes(b"\0garbage")
    assert rk.load_with_index(str(art)).meta["trained_on"] == data["meta"]["trained_on"]


# ----------------------------------------------------------------- the other caches


def _env(cache: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SRC), "XDG_CACHE_HOME": str(cache)}


def test_the_command_exits_with_its_code_and_whole_output_after_a_plain_explain(
    tmp_path: Path,
) -> None:
    # entry() skips the interpreter's teardown: exit handlers (which write the caches)
    # still run, the output is complete, the exit code is explain's.
    env = _env(tmp_path)
    runs = [
        subprocess.run(
            [sys.executable, "-m", "rocmfix", "explain", "--json", text],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        for text in (LINE, LINE, "it does not work")
    ]
    assert [r.returncode for r in runs] == [0, 0, 1]
    assert runs[0].stdout == runs[1].stdout and runs[0].stdout.endswith("}\n")
    assert json.loads(runs[2].stdout)["needs"]
    kinds = {p.name.split("-")[0] for p in (tmp_path / "rocmfix").iterdir()}
    assert {"records", "re", "ranker", "symptoms", "kb", "needles"} <= kinds, kinds


def test_records_built_from_the_code_cache_behave_as_compiled_ones(tmp_path: Path) -> None:
    code = (
        "from rocmfix.kb.matcher import Evidence\n"
        "e = Evidence(line=3, text='x')\n"
        "assert e == Evidence(3, 'x', 1, 0, 0.0, '') and hash(e) == hash(Evidence(3, 'x'))\n"
        "assert repr(e).startswith('Evidence(line=3, text=') and e.count == 1\n"
        "try:\n    e.line = 4\nexcept AttributeError:\n    pass\nelse:\n    raise SystemExit('not frozen')\n"
        "print('ok')\n"
    )
    env = _env(tmp_path)
    for _ in range(2):  # a miss that writes the cache, then a hit
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        assert out.stdout.strip() == "ok", out.stderr
    (stored,) = (tmp_path / "rocmfix").glob("records-*.marshal")
    stored.write_bytes(b"\xffnot marshal")  # damaged: compiled anew, never trusted
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


def test_cached_symptom_tables_are_the_computed_ones_and_follow_the_kb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rocmfix._record import replace
    from rocmfix.kb import symptoms
    from rocmfix.kb.loader import load_kb

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    entries = load_kb([]).entries
    fresh = symptoms.SymptomIndex(entries)
    for _ in range(2):  # built and stored, then read back
        cached = symptoms.SymptomIndex(entries, use_cache=True)
        assert cached._flat == fresh._flat and cached._idf == fresh._idf
        assert cached._gate_tokens == fresh._gate_tokens
    text = "training hangs at the first epoch on my radeon card"
    assert cached.scores(text) == fresh.scores(text)
    # a user KB that adds a symptom gets its own tables
    first = next(i for i, e in enumerate(entries) if e.symptoms)
    changed = list(entries)
    changed[first] = replace(entries[first], symptoms=(*entries[first].symptoms, "zorblax frobnicates"))
    again = symptoms.SymptomIndex(changed, use_cache=True)
    assert again._flat == symptoms.SymptomIndex(changed)._flat != fresh._flat
