"""Run doctor checks concurrently, one crash or hang never stopping the others.

The torch probe is the slow part (importing torch takes seconds), so it is
started first, in its own thread, and every other check runs while it works.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import replace

from rocmfix.errors import ProbeError
from rocmfix.host import Host
from rocmfix.probes.base import CHECKS, CheckResult, Context, Status

# Checks that read the torch probe when it is there but work without it.
_USES_TORCH = frozenset({"rocm-libraries", "math-libs-for-gfx", "env-hsa-override", "rocm-install"})
_WORKERS = 12


def _select(ids: Iterable[str] | None) -> list[str]:
    if ids is None:
        return list(CHECKS)
    wanted = list(dict.fromkeys(ids))
    unknown = [i for i in wanted if i not in CHECKS]
    if unknown:
        raise ProbeError(
            f"unknown check id: {', '.join(unknown)}", hint="known ids: " + ", ".join(CHECKS)
        )
    return wanted


def _run_one(check_id: str, ctx: Context) -> CheckResult:
    spec = CHECKS[check_id]
    start = time.monotonic()
    if spec.needs_torch and not ctx.want_torch:
        res = CheckResult(
            check_id, spec.title, Status.SKIP, "skipped: torch not probed (--no-torch)"
        )
    else:
        try:
            res = spec.fn(ctx)
        except Exception as exc:  # noqa: BLE001 - a broken check must become a reported error, not a crash
            res = CheckResult(
                check_id, spec.title, Status.ERROR, f"check crashed: {type(exc).__name__}: {exc}"
            )
    return replace(res, duration=time.monotonic() - start)


def run_checks(
    host: Host,
    ids: Iterable[str] | None = None,
    python: str | Callable[[], str] = sys.executable,
    timeout: float = 10.0,
    on_result: Callable[[CheckResult], None] | None = None,
    *,
    want_torch: bool = True,
    torch_timeout: float = 60.0,
) -> tuple[CheckResult, ...]:
    """Run checks concurrently against ``host``.

    Args:
        host: Where to read from (LocalHost, SnapshotHost).
        ids: Check ids to run (default: all, in registry order).
        python: Interpreter whose torch is probed.
        timeout: Seconds allowed to each external command.
        on_result: Called in the calling thread with each result as it arrives.
        want_torch: False skips the torch probe and the checks that need it.
        torch_timeout: Seconds allowed to the torch probe child.

    Returns:
        One result per check, in the order of ``ids`` (registry order by default).

    Raises:
        ProbeError: An id is not a known check.
    """
    # python may be a zero-argument callable (commands._target.LazyPython): it is resolved
    # in the probe's thread (its .probe(host, timeout) when it has one), so finding the
    # user's interpreter overlaps the other checks.
    resolve: Callable[[], str] = python if callable(python) else (lambda: python)  # type: ignore[assignment,return-value]
    selected = _select(ids)
    # A snapshot collected with --no-torch replays as collect ran: torch checks skip.
    want_torch = want_torch and getattr(host, "torch_recorded", True)
    needs_torch = want_torch and any(CHECKS[i].needs_torch or i in _USES_TORCH for i in selected)
    ctx = Context(
        host,
        python if isinstance(python, str) else "",
        timeout=timeout,
        torch_timeout=torch_timeout,
        want_torch=needs_torch,
    )
    pool = ThreadPoolExecutor(max_workers=_WORKERS, thread_name_prefix="rocmfix-check")
    try:
        if needs_torch:
            probe = getattr(python, "probe", None)
            ctx.torch_future = (
                pool.submit(probe, host, torch_timeout)
                if probe is not None
                else pool.submit(lambda: host.torch_probe(resolve(), torch_timeout))
            )
        pending: dict[Future[CheckResult], str] = {
            pool.submit(_run_one, i, ctx): i for i in selected
        }
        done = _collect(pending, timeout * 4 + torch_timeout, on_result)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    return tuple(done[i] for i in selected)


def _collect(
    pending: dict[Future[CheckResult], str],
    budget: float,
    on_result: Callable[[CheckResult], None] | None,
) -> dict[str, CheckResult]:
    done: dict[str, CheckResult] = {}
    deadline = time.monotonic() + budget
    while pending:
        finished, _ = wait(
            pending, timeout=max(0.0, deadline - time.monotonic()), return_when=FIRST_COMPLETED
        )
        if not finished:
            for fut, check_id in pending.items():
                fut.cancel()
                spec = CHECKS[check_id]
                done[check_id] = CheckResult(
                    check_id, spec.title, Status.ERROR, f"did not finish within {budget:g}s"
                )
                if on_result:
                    on_result(done[check_id])
            break
        for fut in finished:
            check_id = pending.pop(fut)
            done[check_id] = fut.result()
            if on_result:
                on_result(done[check_id])
    return done
