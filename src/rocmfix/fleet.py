"""Summarize many machines' doctor results: which nodes fail which checks, and why.

Clusters already have a way to run a command on every node (Slurm ``srun``,
pdsh, Ansible, Kubernetes jobs), so rocmfix does not ship its own. Each node
runs ``rocmfix doctor --json``; this module reads the results back and groups
the nodes by their most likely root cause.

Accepted inputs (files or directories, mixed freely):

- one ``rocmfix.doctor/1`` object per file (``srun --output=doctor-%N.json``);
- pdsh output, every line prefixed ``HOST: `` (``pdsh -w ... rocmfix doctor --json``);
- several objects one after another in a file (a loop over ssh);
- a snapshot directory from ``rocmfix collect`` (its checks are re-run, no torch child).

A node's name is its ``host``/``hostname`` field when the JSON has one, else
the pdsh prefix, else the file name without ``doctor`` and ``.json``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rocmfix.errors import InputError
from rocmfix.report import fingerprint, versions

SCHEMA = "rocmfix.fleet/1"
DOCTOR_SCHEMA = "rocmfix.doctor/1"
_READ_LIMIT = 16 * 1024 * 1024
_PDSH_LINE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9_.-]*): ?(.*)$")
_SUFFIXES = (".json", ".jsonl", ".txt", ".out", ".log")


@dataclass(frozen=True)
class Node:
    """One machine's doctor result, or why it could not be read."""

    name: str
    source: str
    doctor: Mapping[str, Any] | None
    problem: str = ""


def name_from_file(path: Path) -> str:
    """``doctor-gpu017.json`` -> ``gpu017``: the name srun/pdsh users put in file names."""
    stem = path.name
    for suffix in (".gz", *_SUFFIXES):
        stem = stem.removesuffix(suffix)
    stem = re.sub(r"^doctor[-_.]|[-_.]doctor$", "", stem)
    return stem or path.parent.name or path.name


def _named(obj: Any, fallback: str, source: str) -> Node:
    if not isinstance(obj, dict):
        return Node(fallback, source, None, "not a JSON object")
    if obj.get("schema") != DOCTOR_SCHEMA:
        return Node(
            fallback, source, None, f"schema {obj.get('schema')!r}, expected {DOCTOR_SCHEMA}"
        )
    if not isinstance(obj.get("checks"), list):
        return Node(fallback, source, None, "no list of checks")
    own = obj.get("host") or obj.get("hostname")
    return Node(str(own) if isinstance(own, str) and own else fallback, source, obj)


def _pdsh(text: str) -> dict[str, str] | None:
    """Lines grouped by their ``HOST: `` prefix, or None when the text is not pdsh output."""
    by_host: dict[str, list[str]] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        m = _PDSH_LINE.match(line)
        if not m:
            return None
        by_host.setdefault(m.group(1), []).append(m.group(2))
    return {h: "\n".join(lines) for h, lines in by_host.items()} or None


def _objects(text: str) -> list[Any] | None:
    """Every JSON value in ``text`` one after another, or None when it is not that."""
    decoder, out, i = json.JSONDecoder(), [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        try:
            obj, i = decoder.raw_decode(text, i)
        except (ValueError, RecursionError):
            return None
        out.append(obj)


def parse_text(text: str, path: Path) -> list[Node]:
    """The nodes in one file's text (see the module docstring for the forms)."""
    src, name = str(path), name_from_file(path)
    try:
        return [_named(json.loads(text), name, src)]
    except (ValueError, RecursionError):  # RecursionError: nested past the limit
        pass
    objs = _objects(text)
    if objs:
        if len(objs) == 1:
            return [_named(objs[0], name, src)]
        return [_named(o, f"{name}#{n}", src) for n, o in enumerate(objs, 1)]
    hosts = _pdsh(text)
    if hosts:
        nodes = []
        for host, body in hosts.items():
            try:
                nodes.append(_named(json.loads(body), host, src))
            except ValueError as err:
                nodes.append(Node(host, src, None, f"not JSON ({err.msg}, line {err.lineno})"))
            except RecursionError:
                nodes.append(Node(host, src, None, "not JSON (nested too deeply)"))
        return nodes
    return [Node(name, src, None, "not rocmfix doctor JSON")]


def _read(path: Path) -> list[Node]:
    from rocmfix import safeio

    try:  # a FIFO would wait for a writer forever
        with safeio.open_regular(path) as fh:
            if path.name.endswith(".gz"):
                import gzip

                with gzip.GzipFile(fileobj=fh, mode="rb") as gz:
                    raw = gz.read(_READ_LIMIT + 1)
            else:
                raw = fh.read(_READ_LIMIT + 1)
    except (OSError, EOFError) as err:
        return [
            Node(name_from_file(path), str(path), None, f"cannot read ({safeio.describe(err)})")
        ]
    if len(raw) > _READ_LIMIT:
        return [Node(name_from_file(path), str(path), None, "larger than 16 MiB")]
    return parse_text(raw.decode("utf-8", errors="replace"), path)


def _snapshot(directory: Path) -> Node:
    from rocmfix import probes
    from rocmfix.errors import RocmfixError
    from rocmfix.snapshot import SnapshotHost

    try:
        host = SnapshotHost(directory)
        results = probes.run_checks(host, python=host.python)
    except RocmfixError as err:
        return Node(directory.name, str(directory), None, err.message)
    return _named(probes.to_json(results), directory.name, str(directory))


def _wanted(path: Path) -> bool:
    name = path.name.removesuffix(".gz")
    return path.is_file() and name.endswith(_SUFFIXES) and not name.startswith(".")


def load(paths: Sequence[str | Path], stdin_text: str | None = None) -> tuple[Node, ...]:
    """Read every node from files, directories of files, and snapshot directories.

    ``-`` stands for ``stdin_text`` (what the caller read from stdin).

    Raises:
        InputError: a path does not exist, or nothing that could be a node was found.
    """
    nodes: list[Node] = []
    for raw in paths:
        p = Path(raw)
        if str(raw) == "-":
            nodes.extend(parse_text(stdin_text or "", Path("stdin")))
            continue
        if not p.exists():
            raise InputError(f"{p}: no such file or directory")
        if p.is_dir() and (p / "snapshot.json").is_file():
            nodes.append(_snapshot(p))
        elif p.is_dir():
            for child in sorted(p.iterdir()):
                if child.is_dir() and (child / "snapshot.json").is_file():
                    nodes.append(_snapshot(child))
                elif _wanted(child):
                    nodes.extend(_read(child))
        else:
            nodes.extend(_read(p))
    if not nodes:
        raise InputError(
            "no doctor results found in " + ", ".join(str(p) for p in paths),
            hint="expected *.json files from `rocmfix doctor --json` or snapshot directories",
        )
    return _unique(nodes)


def _unique(nodes: Iterable[Node]) -> tuple[Node, ...]:
    seen: Counter[str] = Counter()
    out = []
    for node in nodes:
        seen[node.name] += 1
        if seen[node.name] > 1:
            node = Node(f"{node.name}#{seen[node.name]}", node.source, node.doctor, node.problem)
        out.append(node)
    return tuple(out)


# ----------------------------------------------------------------- summary


def _status(doc: Mapping[str, Any]) -> str:
    statuses = {c.get("status") for c in doc.get("checks") or () if isinstance(c, Mapping)}
    for s in ("fail", "error", "warn"):
        if s in statuses:
            return s
    return "ok"


TORCH_NOT_CHECKED = "no-problem-found-torch-not-checked"
"""Group of nodes with nothing wrong in what was checked, but whose torch was not probed
(``doctor --no-torch``): a CPU or CUDA torch, or a missing override, shows only there."""


def torch_unchecked(doc: Mapping[str, Any]) -> bool:
    """True when the doctor ran with ``--no-torch`` (its torch checks were skipped)."""
    return any(
        isinstance(c, Mapping)
        and c.get("id") == "torch-build"
        and c.get("status") == "skip"
        and "not probed" in str(c.get("summary", ""))
        for c in doc.get("checks") or ()
    )


def group_key(doc: Mapping[str, Any]) -> str:
    """The node's group: its top root cause, else what kind of trouble it has."""
    causes = (doc.get("summary") or {}).get("root_causes") or ()
    if causes and isinstance(causes[0], Mapping) and causes[0].get("id"):
        return str(causes[0]["id"])
    key = {
        "fail": "unexplained-failure",
        "error": "checks-could-not-run",
        "warn": "warnings-only",
    }.get(_status(doc), "healthy")
    return TORCH_NOT_CHECKED if key == "healthy" and torch_unchecked(doc) else key


def summarize(nodes: Sequence[Node]) -> dict[str, Any]:
    """The ``rocmfix.fleet/1`` object: groups by root cause, checks, versions."""
    good = [n for n in nodes if n.doctor is not None]
    groups: dict[str, list[Node]] = {}
    per_check: dict[str, dict[str, list[str]]] = {}
    vers: dict[str, Counter[str]] = {k: Counter() for k in ("torch", "rocm", "gfx", "kernel")}
    for node in good:
        doc = node.doctor or {}
        groups.setdefault(group_key(doc), []).append(node)
        for c in doc.get("checks") or ():
            status = c.get("status") if isinstance(c, Mapping) else None
            if status in ("fail", "warn", "error"):
                per_check.setdefault(str(c.get("id")), {"fail": [], "warn": [], "error": []})[
                    status
                ].append(node.name)
        v = versions(doc)
        vers["torch"][v.torch or "unknown"] += 1
        vers["rocm"][v.rocm or "unknown"] += 1
        vers["gfx"][",".join(v.gfx) or "none"] += 1
        vers["kernel"][v.kernel or "unknown"] += 1
    status_counts = Counter(_status(n.doctor or {}) for n in good)
    return {
        "schema": SCHEMA,
        "nodes": len(nodes),
        "status": {
            "fail": status_counts["fail"],
            "error": status_counts["error"],
            "warn": status_counts["warn"],
            "ok": status_counts["ok"],
            "unreadable": len(nodes) - len(good),
            "torch_not_checked": sum(1 for n in good if torch_unchecked(n.doctor or {})),
        },
        "groups": [_group(key, members) for key, members in _ordered(groups)],
        "checks": _checks(per_check),
        "versions": {k: dict(c.most_common()) for k, c in vers.items()},
        "unreadable": [
            {"node": n.name, "source": n.source, "problem": n.problem}
            for n in nodes
            if n.doctor is None
        ],
    }


def _ordered(groups: Mapping[str, list[Node]]) -> list[tuple[str, list[Node]]]:
    # Biggest problem first; healthy machines last.
    def last(key: str) -> int:
        return {"healthy": 2, TORCH_NOT_CHECKED: 1}.get(key, 0)

    return sorted(groups.items(), key=lambda kv: (last(kv[0]), -len(kv[1]), kv[0]))


def _group(key: str, members: Sequence[Node]) -> dict[str, Any]:
    failing: Counter[str] = Counter()
    prints: Counter[str] = Counter()
    also: Counter[str] = Counter()
    for node in members:
        doc = node.doctor or {}
        failing.update(
            str(c.get("id")) for c in doc.get("checks") or () if c.get("status") == "fail"
        )
        prints[fingerprint(doc)] += 1
        also.update(
            str(rc.get("id")) for rc in ((doc.get("summary") or {}).get("root_causes") or ())[1:]
        )
    next_cmd = (members[0].doctor or {}).get("summary", {}).get("next_command", "")
    return {
        "root_cause": key,
        "count": len(members),
        "nodes": [n.name for n in members],
        "failing_checks": dict(failing.most_common()),
        "also_suspected": dict(also.most_common()),
        "fingerprints": dict(prints.most_common()),
        "next_command": (
            ""
            if key == "healthy"
            else "rocmfix doctor --json (without --no-torch) on these nodes"
            if key == TORCH_NOT_CHECKED
            else next_cmd
        ),
    }


def _checks(per_check: Mapping[str, Mapping[str, list[str]]]) -> list[dict[str, Any]]:
    rows = [{"id": cid, **lists} for cid, lists in per_check.items()]
    return sorted(rows, key=lambda r: (-len(r["fail"]), -len(r["error"]), -len(r["warn"]), r["id"]))


def compress(names: Iterable[str]) -> str:
    """Hostlist notation: ``gpu001 gpu002 gpu003 gpu007`` -> ``gpu[001-003,007]``."""
    numbered: dict[tuple[str, int], list[int]] = {}
    plain: list[str] = []
    for name in names:
        m = re.fullmatch(r"(.*?)(\d+)", name)
        if m:
            numbered.setdefault((m.group(1), len(m.group(2))), []).append(int(m.group(2)))
        else:
            plain.append(name)
    parts = []
    for (prefix, width), nums in sorted(numbered.items()):
        nums = sorted(set(nums))
        if len(nums) == 1:
            parts.append(f"{prefix}{nums[0]:0{width}d}")
            continue
        ranges, start, prev = [], nums[0], nums[0]
        for n in [*nums[1:], None]:
            if n is not None and n == prev + 1:
                prev = n
                continue
            ranges.append(f"{start:0{width}d}" + (f"-{prev:0{width}d}" if prev != start else ""))
            if n is not None:
                start = prev = n
        parts.append(f"{prefix}[{','.join(ranges)}]")
    return ", ".join(parts + sorted(plain))
