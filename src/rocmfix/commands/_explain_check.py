"""`rocmfix explain --check`: confirm or rule out the top matches on this machine.

Runs only the doctor checks the top entries name (``checks:`` in the KB) and
turns each match into a verdict: *confirmed* when a check reports the entry's
id among the causes it confirms, *ruled out* when a check rules it out, else
*not confirmed*. Kept apart from `explain` so the plain path never imports the
probes.
"""

from __future__ import annotations

from typing import Any


def machine_params(host: Any) -> dict[str, str]:
    """Values the machine itself tells (its discrete GPU's gfx, its ROCm version)."""
    from rocmfix.probes.gpus import read_gpus
    from rocmfix.probes.install import system_rocm_version

    params: dict[str, str] = {}
    gpus = read_gpus(host)
    discrete = [g for g in gpus if not g.integrated and g.gfx] or [g for g in gpus if g.gfx]
    if discrete:
        params["gfx"] = discrete[0].gfx
    version = system_rocm_version(host)
    if version:
        params["rocm_version"] = ".".join(version.split(".")[:3])
    return params


def confirm_with_checks(
    result: Any, top: int, *, python: str | None, snapshot: str | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    """Verdict per KB id of the top matches (``{id: {verdict, summary, fix, checks}}``)
    and the values read from the machine, to fill fixes the text could not."""
    from rocmfix.commands._target import pick_target
    from rocmfix.probes import CHECKS, run_checks

    matches = [m for m in result.matches[: max(top, 1)] if m.confidence > 0]
    ids = sorted({c for m in matches for c in m.entry.checks if c in CHECKS})
    host, python = pick_target(snapshot, python)
    params = machine_params(host)
    if not matches or not ids:
        return {}, params
    results = run_checks(host, ids=ids, python=python)
    verdicts: dict[str, Any] = {}
    for m in matches:
        mine = [r for r in results if r.id in m.entry.checks]
        confirming = [r for r in mine if m.entry.id in r.kb_ids]
        ruling_out = [r for r in mine if m.entry.id in r.ruled_out]
        if confirming:
            verdict, why = "confirmed", confirming
        elif ruling_out:
            verdict, why = "ruled out", ruling_out
        else:
            verdict, why = "not confirmed", []
        summary = "; ".join(r.summary for r in why)
        if not why:
            # Checks that failed for another cause (no GPU at all, a CPU-only torch) are news,
            # not "nothing either way".
            bad = [r for r in mine if r.status.value in ("fail", "warn", "error")]
            others = sorted({k for r in bad for k in r.kb_ids if k != m.entry.id})
            summary = (
                "; ".join(f"{r.id} {r.status.value}: {r.summary}" for r in bad)
                + (f" (points to {', '.join(others)} instead)" if others else "")
                if bad
                else "the checks it names found nothing either way"
            )
        verdicts[m.entry.id] = {
            "verdict": verdict,
            "summary": summary,
            "fix": next((r.fix for r in confirming if r.fix), None),
            "checks": [{"id": r.id, "status": r.status.value, "summary": r.summary} for r in mine],
        }
    return verdicts, params
