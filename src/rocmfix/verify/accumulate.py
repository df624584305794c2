"""Fold the child's protocol events and its exit into a VerifyResult.

Kept apart from the process handling so that the rules (which stage failed,
what kind, which devices and peaks, which notes) can be read and tested without
spawning anything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rocmfix.verify.classify import build_failure, signal_name, slow_failure
from rocmfix.verify.model import (
    DTYPES,
    DeviceResult,
    Failure,
    FailureKind,
    StageEvent,
    TorchInfo,
    VerifyResult,
    stage_label,
)

_CHILD_KINDS = {k.value: k for k in FailureKind}


def _peak_fields(name: str) -> dict[str, Any]:
    from rocmfix import facts

    peak = facts.peak_for_device(name)
    if peak is None:
        return {}
    values = {d: getattr(peak, d) for d in DTYPES}
    return {
        "peak_tflops": {d: float(v) for d, v in values.items() if v},
        "peak_name": peak.name,
        "peak_unverified": peak.unverified,
    }


class Accumulator:
    """Mutable state of one run; ``finish`` freezes it into a VerifyResult."""

    def __init__(self, python: str, on_stage: Callable[[StageEvent], None] | None) -> None:
        self.python = python
        self.on_stage = on_stage
        self.stages: list[StageEvent] = []
        self.current: str | None = None
        self.current_device: int | None = None
        self.torch = TorchInfo()
        self.enumerated: list[dict[str, Any]] = []
        self.tested: list[int] = []
        self.tflops: dict[int, dict[str, float]] = {}
        self.fail_event: dict[str, Any] | None = None
        self.end_elapsed: float | None = None
        self.protocol_seen = False
        self.junk: list[str] = []

    # ------------------------------------------------------------ events

    def feed(self, event: dict[str, Any]) -> None:
        """Take one protocol object from the child."""
        self.protocol_seen = True
        kind = event["event"]
        if kind == "start":
            self.current = str(event.get("stage"))
            dev = event.get("device")
            self.current_device = dev if isinstance(dev, int) else None
            if isinstance(dev, int) and dev not in self.tested:
                self.tested.append(dev)
        elif kind == "progress" and event.get("dtype") in DTYPES:
            dev = int(event.get("device") or 0)
            self.tflops.setdefault(dev, {})[event["dtype"]] = float(event.get("tflops", 0.0))
        elif kind in ("done", "fail"):
            self._stage_finished(event, ok=kind == "done")
        elif kind == "end":
            self.end_elapsed = float(event.get("elapsed", 0.0))

    def garbage(self, line: str) -> None:
        """A stdout line that is not protocol; kept to explain a confused child."""
        if line.strip() and len(self.junk) < 5:
            self.junk.append(line[:200])

    def _stage_finished(self, event: dict[str, Any], ok: bool) -> None:
        stage = str(event.get("stage"))
        data = event.get("data") or {}
        if stage == "import" and ok:
            self.torch = TorchInfo(
                version=str(data.get("version", "")),
                flavour=str(data.get("flavour", "")),
                hip=data.get("hip"),
                cuda=data.get("cuda"),
            )
        elif stage == "enumerate" and ok:
            self.enumerated = list(data.get("devices") or [])
        elif stage == "perf" and ok:
            dev = int(event.get("device") or 0)
            self.tflops[dev] = {k: float(v) for k, v in (data.get("tflops") or {}).items()}
        device = event.get("device")
        step = StageEvent(
            stage=stage,
            ok=ok,
            seconds=float(event.get("seconds", 0.0)),
            device=device if isinstance(device, int) else None,
            detail=str(event.get("detail") or event.get("message") or ""),
        )
        self.stages.append(step)
        self.current = None
        if not ok:
            self.fail_event = event
        if self.on_stage is not None:
            self.on_stage(step)

    # ------------------------------------------------------------ result

    def devices(self) -> tuple[DeviceResult, ...]:
        wanted = set(self.tested) or {int(d.get("index", 0)) for d in self.enumerated}
        out = []
        for row in self.enumerated:
            index = int(row.get("index", 0))
            if index not in wanted:
                continue
            name = str(row.get("name", ""))
            out.append(
                DeviceResult(
                    index=index,
                    name=name,
                    arch=str(row.get("arch", "")),
                    tflops=self.tflops.get(index, {}),
                    memory_gib=row.get("memory_gib"),
                    **(_peak_fields(name) if self.torch.flavour != "cpu" else {}),
                )
            )
        return tuple(out)

    def _failure(
        self,
        returncode: int | None,
        hung: bool,
        killed: bool,
        timeout: float,
        stderr_lines: list[str],
        devices: tuple[DeviceResult, ...],
    ) -> Failure | None:
        stage = self.current or (self.stages[-1].stage if self.stages else "import")
        where = stage_label(stage)
        if self.current is not None and self.current_device is not None:
            where += f" on GPU {self.current_device}"
        common = {"stderr_lines": stderr_lines, "devices": devices}
        if hung:
            extra = "" if killed else "; it could not be killed (stuck in the driver?)"
            return build_failure(
                stage=stage,
                kind=FailureKind.HANG,
                message=f"no progress for {timeout:g} s during {where}{extra}",
                **common,
            )
        if self.fail_event is not None:
            ev = self.fail_event
            return build_failure(
                stage=str(ev.get("stage")),
                kind=_CHILD_KINDS.get(str(ev.get("kind")), FailureKind.ERROR),
                message=str(ev.get("message", "")),
                facts=ev.get("facts") or {},
                **common,
            )
        sig = signal_name(returncode) if returncode is not None else None
        if sig is not None:
            return build_failure(
                stage=stage,
                kind=FailureKind.CRASH,
                sig=sig,
                message=f"the child died with {sig} during {where}",
                **common,
            )
        if returncode == 0 and self.end_elapsed is not None:
            return slow_failure(devices) if self.torch.flavour != "cpu" else None
        message = self._error_message(returncode, stderr_lines)
        return build_failure(stage=stage, kind=FailureKind.ERROR, message=message, **common)

    def _error_message(self, returncode: int | None, stderr_lines: list[str]) -> str:
        if not self.protocol_seen:
            shown = f": {self.junk[0]!r}" if self.junk else ""
            return f"the interpreter did not run the verify child (exit status {returncode}){shown}"
        last = next((ln.strip() for ln in reversed(stderr_lines) if ln.strip()), "")
        if returncode == 0:
            return "the child stopped before finishing all stages"
        return f"the child exited with status {returncode}" + (f": {last}" if last else "")

    def notes(self, devices: tuple[DeviceResult, ...]) -> tuple[str, ...]:
        out = []
        if self.torch.flavour == "cuda" and devices:
            out.append(
                "torch is a CUDA build: this is not a ROCm GPU (verified through CUDA anyway)"
            )
        if self.torch.flavour == "cpu" and devices:
            out.append("CPU rehearsal: every stage ran on the CPU; no GPU was tested")
        for dev in devices:
            if self.torch.flavour != "cpu" and not dev.peak_tflops:
                out.append(f"GPU {dev.index} ({dev.name}) is not in the peak table: no % of peak")
            elif dev.peak_unverified:
                out.append(
                    f"GPU {dev.index}: peak figures for {dev.peak_name} are marked unverified"
                )
        return tuple(out)

    def finish(
        self,
        *,
        returncode: int | None,
        hung: bool,
        killed: bool,
        timeout: float,
        stderr_lines: list[str],
        elapsed: float,
    ) -> VerifyResult:
        devices = self.devices()
        failure = self._failure(returncode, hung, killed, timeout, stderr_lines, devices)
        return VerifyResult(
            ok=failure is None,
            python=self.python,
            stages=tuple(self.stages),
            devices=devices,
            failure=failure,
            torch=self.torch,
            notes=self.notes(devices),
            elapsed=elapsed,
            child_elapsed=self.end_elapsed,
        )
