"""The frozen evaluation split: which labelled real reports nothing is ever tuned on.

A report belongs to a *thread* (an issue, a forum topic, a blog post); every case
from one thread lands on the same side, so a wording cannot leak from the tuning
side into the frozen side through a second comment of the same thread.

The split was chosen once, stratified by label (per label, the threads are
ordered by the SHA-256 of their key and the first 30 % go to the frozen side), and
is recorded in ``tests/data/split.json``. A thread that is not in the record (a
report collected later) is placed by the same hash alone: frozen when the first
eight hex digits, read as a number, fall in the lowest 30 % of their range. A
round of new reports is therefore split the moment it is written down, before
anybody reads it to tune an entry.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

FROZEN = "frozen"
TUNE = "tune"
FROZEN_SHARE = 0.30
SCHEMA = "rocmfix.split/1"

_GITHUB_THREAD = re.compile(r"^/([^/]+)/([^/]+)/(?:issues|pull|discussions)/(\d+)")


def thread_key(source: str) -> str:
    """A stable name for the thread a report came from.

    GitHub issues, pull requests and discussions of one number in one repository are
    one thread (comment anchors and ``/files`` tails dropped); anything else is its
    URL without scheme, query, fragment, ``www.`` and trailing slash, lower-cased.
    """
    src = (source or "").strip()
    if not src:
        return ""
    parts = urlsplit(src if "://" in src else "https://" + src)
    host = parts.netloc.lower().removeprefix("www.")
    path = parts.path
    if host == "github.com":
        m = _GITHUB_THREAD.match(path)
        if m:
            owner, repo, num = m.groups()
            return f"github.com/{owner.lower()}/{repo.lower()}/{num}"
    key = f"{host}{path.rstrip('/')}".lower()
    # A tracker that names its thread in the query (show_bug.cgi?id=N, viewtopic.php?t=N) keeps
    # that parameter: without it every bug of a Bugzilla would be one thread. Only these names,
    # so that keys of the threads recorded before (other queries dropped) stay as they were.
    kept = sorted(
        (k.lower(), v)
        for k, v in parse_qsl(parts.query, keep_blank_values=False)
        if k.lower() in _THREAD_PARAMS
    )
    if kept:
        key += "?" + "&".join(f"{k}={v}" for k, v in kept).lower()
    return key


_THREAD_PARAMS = frozenset({"id", "t", "topic", "threadid", "showtopic"})


def _digest(key: str) -> int:
    return int(hashlib.sha256(key.encode("utf-8")).hexdigest()[:8], 16)


def hash_side(key: str) -> str:
    """Side of a thread that is not in the record: by its hash alone."""
    return FROZEN if _digest(key) < FROZEN_SHARE * 0x1_0000_0000 else TUNE


def choose(cases: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """Stratified choice over ``cases`` (each with ``source`` and ``label``).

    A thread's stratum is the label of its first case. Within each stratum the
    threads are ordered by hash and the first ``round(30 %)`` go frozen, at least
    one where a stratum has three threads or more.
    """
    strata: dict[str, list[str]] = defaultdict(list)
    seen: set[str] = set()
    for case in cases:
        key = thread_key(str(case.get("source", "")))
        if not key or key in seen:
            continue
        seen.add(key)
        strata[str(case.get("label", "none"))].append(key)
    sides: dict[str, str] = {}
    for keys in strata.values():
        keys.sort(key=lambda k: (_digest(k), k))
        n = round(len(keys) * FROZEN_SHARE)
        if n == 0 and len(keys) >= 3:
            n = 1
        for i, key in enumerate(keys):
            sides[key] = FROZEN if i < n else TUNE
    return sides


class Split:
    """The recorded split, with the hash rule for threads recorded after it."""

    def __init__(self, sides: Mapping[str, str]) -> None:
        self.sides = dict(sides)

    @classmethod
    def load(cls, path: str | Path) -> Split:
        from rocmfix import safeio  # noqa: PLC0415

        data = json.loads(safeio.read_bytes(path, 64 * safeio.MiB).decode("utf-8"))
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise ValueError(f"{path}: not a {SCHEMA} file")
        threads = data.get("threads")
        if not isinstance(threads, dict) or any(
            v not in (FROZEN, TUNE) for v in threads.values()
        ):
            raise ValueError(f"{path}: 'threads' must map thread keys to frozen/tune")
        return cls(threads)

    def side(self, source: str) -> str:
        key = thread_key(source)
        if not key:
            return FROZEN  # a case without a source is never tuned on
        return self.sides.get(key) or hash_side(key)

    def dump(self, path: str | Path) -> None:
        body = {
            "schema": SCHEMA,
            "rule": (
                "per label, threads ordered by sha256(thread key); first 30% frozen. "
                "Threads not listed: frozen when int(sha256[:8], 16) < 0.3 * 2**32."
            ),
            "threads": dict(sorted(self.sides.items())),
        }
        Path(path).write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")


def repo_cases(data_dir: str | Path) -> list[dict[str, Any]]:
    """Every labelled real report the repository holds, as eval cases.

    ``heldout/*.jsonl`` rows as they are, and ``logs/<id>/*.txt`` samples (label =
    folder, ``_negative`` = ``none``, source from their ``# source:`` line; the
    comment lines are not part of the text). Each case gets ``origin`` (its file).
    """
    root = Path(data_dir)
    cases: list[dict[str, Any]] = []
    for path in sorted((root / "heldout").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                case = json.loads(line)
                case["origin"] = f"heldout/{path.name}"
                cases.append(case)
    for path in sorted((root / "logs").glob("*/*.txt")):
        raw = path.read_text(encoding="utf-8", errors="replace")
        source, body = "", []
        for line in raw.splitlines():
            if not body and line.startswith("# "):
                if line.startswith("# source:") and not source:
                    source = line.split(":", 1)[1].strip()
                continue
            body.append(line)
        label = path.parent.name
        cases.append(
            {
                "id": f"logs/{label}/{path.stem}",
                "source": source,
                "text": "\n".join(body),
                "label": "none" if label == "_negative" else label,
                "origin": f"logs/{label}/{path.name}",
            }
        )
    return cases
