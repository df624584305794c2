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
# What one check's claim is worth on explain's scale (matcher.CONFIDENT = 0.5 means "this
# is the cause"): a failing check names a cause, a warning only makes it possible.
_STRENGTH = {Status.FAIL: 0.9, Status.WARN: 0.35}
# Causes that explain others: when the deeper one is confirmed by a failing check, the
# consequence ranks after it (an amdgpu-dkms module not built for this kernel is why
# /dev/kfd has no device; a card no ROCm supports is why torch has no kernels for it).
EXPLAINS: dict[str, frozenset[str]] = {
    "amdgpu-dkms-build-failure": frozenset({"kfd-device-missing", "no-gpu-visible"}),
    "unsupported-gpu-architecture": frozenset(
        {"kfd-device-missing", "no-gpu-visible", "no-binary-for-gpu", "rocblas-tensile-missing"}
    ),
    "rocm-too-old-for-gpu": frozenset(
        {"kfd-device-missing", "no-gpu-visible", "no-binary-for-gpu"}
    ),
    "wsl-limitations": frozenset({"kfd-device-missing", "no-gpu-visible"}),
    "kfd-device-missing": frozenset({"no-gpu-visible"}),
    "kfd-permission-denied": frozenset({"no-gpu-visible"}),
    "cpu-only-build": frozenset({"no-gpu-visible"}),
    "cuda-build-on-amd": frozenset({"no-gpu-visible"}),
    "no-binary-for-gpu": frozenset({"rocblas-tensile-missing"}),
}


def root_causes(results: Iterable[CheckResult], limit: int = 3) -> list[dict[str, Any]]:
    """Most likely root causes: KB ids confirmed by failing (then warning) checks.

    Each cause's ``confidence`` combines its checks by noisy-or (a failing check 0.9, a
    warning 0.35), on the scale explain uses. A cause that any check in the report rules
    out is never ranked; a cause explained by another failing cause ranks after it.
    """
    results = list(results)
    ruled = {k for res in results for k in res.ruled_out}
    score: dict[str, int] = {}
    miss: dict[str, float] = {}
    failed: set[str] = set()
    by: dict[str, list[str]] = {}
    order: list[str] = []
    for res in results:
        if res.status not in _WEIGHT:
            continue
        for kb in res.kb_ids:
            if kb in ruled:
                continue
            if kb not in score:
                order.append(kb)
            score[kb] = score.get(kb, 0) + _WEIGHT[res.status]
            miss[kb] = miss.get(kb, 1.0) * (1 - _STRENGTH[res.status])
            if res.status is Status.FAIL:
                failed.add(kb)
            by.setdefault(kb, []).append(res.id)
    explained = {k for k in order if any(k in EXPLAINS.get(j, ()) for j in failed if j != k)}
    ranked = sorted(order, key=lambda k: (k in explained, -score[k], order.index(k)))
    return [
        {"id": k, "score": score[k], "confidence": round(1 - miss[k], 3), "checks": by[k]}
        for k in ranked[:limit]
    ]


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
