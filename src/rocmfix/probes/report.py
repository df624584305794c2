"""Turn check results into the ``rocmfix.doctor/1`` JSON object and a verdict.

The verdict ranks knowledge-base ids by how strongly the checks confirm
them (a failing check weighs more than a warning) and names the next
command, so the human and JSON outputs tell the same story.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rocmfix.probes.base import CheckResult, Status

SCHEMA = "rocmfix.doctor/1"
_WEIGHT = {Status.FAIL: 3, Status.WARN: 1}


def root_causes(results: Iterable[CheckResult], limit: int = 3) -> list[dict[str, Any]]:
    """Most likely root causes: KB ids confirmed by failing (then warning) checks."""
    score: dict[str, int] = {}
    by: dict[str, list[str]] = {}
    order: list[str] = []
    for res in results:
        for kb in res.kb_ids:
            if res.status not in _WEIGHT:
                continue
            if kb not in score:
                order.append(kb)
            score[kb] = score.get(kb, 0) + _WEIGHT[res.status]
            by.setdefault(kb, []).append(res.id)
    ranked = sorted(order, key=lambda k: (-score[k], order.index(k)))
    return [{"id": k, "score": score[k], "checks": by[k]} for k in ranked[:limit]]


def next_command(results: Iterable[CheckResult]) -> str:
    results = list(results)
    causes = root_causes(results, 1)
    if causes:
        return f"rocmfix fix {causes[0]['id']}"
    if any(r.status is Status.FAIL for r in results):
        return "rocmfix doctor -v"
    return "rocmfix verify"


def summarize(results: Iterable[CheckResult]) -> dict[str, Any]:
    results = list(results)
    counts = {s.value: sum(r.status is s for r in results) for s in Status}
    worst = max((r.status for r in results), key=lambda s: s.rank, default=Status.OK)
    status = Status.FAIL if counts["fail"] else worst
    return {
        "status": status.value,
        "counts": counts,
        "root_causes": root_causes(results),
        "next_command": next_command(results),
    }


def result_to_dict(res: CheckResult) -> dict[str, Any]:
    return {
        "id": res.id,
        "title": res.title,
        "status": res.status.value,
        "summary": res.summary,
        "details": res.details,
        "evidence": [{"source": e.source, "value": e.value} for e in res.evidence],
        "kb_ids": list(res.kb_ids),
        "ruled_out": list(res.ruled_out),
        "fix": res.fix,
        "duration": round(res.duration, 3),
    }


def to_json(results: Iterable[CheckResult]) -> dict[str, Any]:
    """The ``rocmfix.doctor/1`` object: every check plus the summary."""
    results = list(results)
    return {
        "schema": SCHEMA,
        "checks": [result_to_dict(r) for r in results],
        "summary": summarize(results),
    }


def exit_code(results: Iterable[CheckResult]) -> int:
    """0 when nothing fails, 1 when any check fails."""
    return 1 if any(r.status is Status.FAIL for r in results) else 0
