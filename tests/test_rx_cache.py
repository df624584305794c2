"""rocmfix._rx: patterns compiled from the on-disk cache are the patterns re compiles."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

PATTERNS = [
    (r"(?P<gfx>gfx[0-9]{3,4}[0-9a-f]?)\b", 0),
    (r"(?<![A-Za-z0-9])[AHL]\d{2,3}(?:[ -]SXM|(?![A-Za-z0-9]))", 0),
    (r"hipError\w+|Memory access fault", re.IGNORECASE),
    (rb"^\s*\[rank\d+\]:", re.MULTILINE),
    (r"\bROCm[ -]?v?(\d+\.\d+)", 0),
]

_CODE = """
import json, re, sys
from rocmfix import _rx
out = []
for p, f in json.loads(sys.argv[1]):
    p = p.encode() if f & 1024 else p
    f &= ~1024
    rx = _rx.compile(p, f)
    out.append([rx == re.compile(p, f), rx.groupindex == re.compile(p, f).groupindex,
                bool(rx.search(b"  [rank3]: x" if isinstance(p, bytes) else "gfx1100 ROCm 6.2 hipErrorX H100"))])
print(json.dumps(out))
"""


def _run(cache: Path) -> list[list[bool]]:
    import json
    import os

    args = json.dumps(
        [
            (p.decode() if isinstance(p, bytes) else p, f | (1024 if isinstance(p, bytes) else 0))
            for p, f in PATTERNS
        ]
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    out = subprocess.run(
        [sys.executable, "-c", _CODE, args], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(out.stdout)


def test_cached_patterns_equal_re_compile(tmp_path: Path) -> None:
    first = _run(tmp_path)  # compiles and writes the cache
    assert list((tmp_path / "rocmfix").glob("re-*.marshal"))
    second = _run(tmp_path)  # loads every pattern from it
    assert first == second
    assert all(a and b for a, b, _ in second)
    assert [c for _, _, c in second] == [True, True, True, True, True]


def test_a_damaged_cache_falls_back_to_re(tmp_path: Path) -> None:
    _run(tmp_path)
    (cache,) = (tmp_path / "rocmfix").glob("re-*.marshal")
    import marshal

    data = marshal.loads(cache.read_bytes())
    for key, (flags, code, groups, gi, ig) in list(data.items()):
        data[key] = (flags, code[: len(code) // 2], groups, gi, ig)  # truncated SRE code
    cache.write_bytes(marshal.dumps(data))
    assert all(a and b for a, b, _ in _run(tmp_path))
    cache.write_bytes(b"not marshal at all")
    assert all(a and b for a, b, _ in _run(tmp_path))


def test_an_invalid_pattern_raises_as_re_does() -> None:
    from rocmfix import _rx

    with pytest.raises(re.error):
        _rx.compile("a{2}{3}")
