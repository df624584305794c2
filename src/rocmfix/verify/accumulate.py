"""Fold the child's protocol events and its exit into a VerifyResult.

Kept apart from the process handling so that the rules (which stage failed,
what kind, which devices and peaks, which notes) can be read and tested without
spawning anything.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from rocmfix.verify.classify import build_failure, signal_name, slow_failure, text_kb_ids
from rocmfix.verify.model import (
    DEFAULT_LEVEL,
    DTYPES,
    LEVELS,
    PER_DEVICE,
    DeviceResult,
    Failure,
    FailureKind,
    StageEvent,
    TorchInfo,
    VerifyResult,
    stage_label,
)

_CHILD_KINDS = {k.value: k for k in FailureKind}
SLOW_FIRST_S = 5.0
"""A first convolution slower than this (and 20x a repeated one) is MIOpen's search, named.

Loading the convolution library alone takes about 3 s on a first use (cuDNN on an
H200, measured); beyond that, the time goes to the per-shape kernel search."""
_SLOW_FIRST_FACTOR = 20.0


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

    def __init__(
        self,
        python: str,
        on_stage: Callable[[StageEvent], None] | None,
        level: str = DEFAULT_LEVEL,
        cpu: bool = False,
        ranks: int = 0,
    ) -> None:
        self.python = python
        self.on_stage = on_stage
        self.level = level
        self.cpu = cpu
        self.ranks = ranks
        self.env: dict[str, str] = {}
        self.miopen: dict[str, Any] = {}
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
        if kind == "hello":
            env = event.get("env")
            if isinstance(env, dict):
                self.env = {str(k): str(v)[:300] for k, v in list(env.items())[:200]}
            if isinstance(event.get("miopen"), dict):
                self.miopen = {str(k): v for k, v in list(event["miopen"].items())[:10]}
        elif kind == "start":
            self.current = str(event.get("stage"))[:60]
            dev = event.get("device")
            self.current_device = dev if isinstance(dev, int) else None
            if isinstance(dev, int) and dev not in self.tested:
                self.tested.append(dev)
        elif kind == "progress" and event.get("dtype") in DTYPES:
            dev = _index(event.get("device"))
            rate = _finite(event.get("tflops"))
            if rate is not None:  # a rate the child could not give stays unshown ("-")
                self.tflops.setdefault(dev, {})[event["dtype"]] = rate
        elif kind in ("done", "fail"):
            self._stage_finished(event, ok=kind == "done")
        elif kind == "end":
            self.end_elapsed = _number(event.get("elapsed"))

    def garbage(self, line: str) -> None:
        """A stdout line that is not protocol; kept to explain a confused child."""
        if line.strip() and len(self.junk) < 5:
            self.junk.append(line[:200])

    def _stage_finished(self, event: dict[str, Any], ok: bool) -> None:
        stage = str(event.get("stage"))[:60]
        data = event.get("data")
        data = data if isinstance(data, dict) else {}
        if stage == "import" and ok:
            self.torch = TorchInfo(
                version=str(data.get("version", "")),
                flavour=str(data.get("flavour", "")),
                hip=_version_or_none(data.get("hip")),
                cuda=_version_or_none(data.get("cuda")),
            )
        elif stage == "enumerate" and ok:
            rows = data.get("devices")
            self.enumerated = (
                [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []
            )
        elif stage == "perf" and ok:
            dev = _index(event.get("device"))
            rates = data.get("tflops")
            rates = rates if isinstance(rates, dict) else {}
            self.tflops[dev] = {
                str(k): r for k, v in rates.items() if k in DTYPES and (r := _finite(v)) is not None
            }
        elif stage == "conv" and isinstance(data.get("miopen"), dict):
            self.miopen = {str(k): v for k, v in list(data["miopen"].items())[:10]}
        device = event.get("device")
        step = StageEvent(
            stage=stage,
            ok=ok,
            seconds=_number(event.get("seconds")),
            device=device if isinstance(device, int) else None,
            detail=str(event.get("detail") or event.get("message") or ""),
            data=data if isinstance(data, dict) else {},
        )
        self.stages.append(step)
        self.current = None
        if not ok and self.fail_event is None:
            self.fail_event = event  # the first failure is the one to explain
        if self.on_stage is not None:
            self.on_stage(step)

    # ------------------------------------------------------------ result

    def devices(self) -> tuple[DeviceResult, ...]:
        wanted = set(self.tested) or {_index(d.get("index")) for d in self.enumerated}
        out = []
        for row in self.enumerated:
            index = _index(row.get("index"))
            if index not in wanted:
                continue
            name = str(row.get("name", ""))
            out.append(
                DeviceResult(
                    index=index,
                    name=name,
                    arch=str(row.get("arch", "")),
                    tflops=self.tflops.get(index, {}),
                    memory_gib=_number(row["memory_gib"]) if "memory_gib" in row else None,
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
                stage=str(ev.get("stage"))[:60],
                kind=_CHILD_KINDS.get(str(ev.get("kind")), FailureKind.ERROR),
                message=str(ev.get("message", ""))[:2000],
                facts=ev["facts"] if isinstance(ev.get("facts"), dict) else {},
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
            missing = self.missing_stages()
            if missing:
                return build_failure(
                    stage=missing[0],
                    kind=FailureKind.ERROR,
                    message="the child said it finished but never reported "
                    + ", ".join(missing)
                    + f" (required at level {self.level}): not verified",
                    **common,
                )
            miopen = self._miopen_failure(stderr_lines, devices)
            if miopen is not None:
                return miopen
            return slow_failure(devices) if self.torch.flavour != "cpu" else None
        message = self._error_message(returncode, stderr_lines)
        return build_failure(stage=stage, kind=FailureKind.ERROR, message=message, **common)

    def missing_stages(self) -> list[str]:
        """Required stages of the level that no ``done`` event reported (per GPU where per device)."""
        level = LEVELS.get(self.level, LEVELS[DEFAULT_LEVEL])
        gpus = sorted(set(self.tested)) or [0]
        required = level.required(len(self.tested), cpu=self.cpu, ranks=self.ranks)
        passed = {(s.stage, s.device) for s in self.stages if s.ok}
        passed_any = {s.stage for s in self.stages if s.ok}
        missing = []
        for stage in required:
            if stage in PER_DEVICE and not self.cpu:
                if not all((stage, gpu) in passed for gpu in gpus):
                    missing.append(stage)
            elif stage not in passed_any:
                missing.append(stage)
        return missing

    def miopen_where(self) -> str:
        """The kernel cache and user database MIOpen used, as the child saw them."""
        if not self.miopen:
            return ""
        parts = [f"kernel cache {self.miopen.get('cache_dir')}"]
        parts.append(f"user db {self.miopen.get('user_db')}")
        unwritable = [
            k for k in ("cache_dir", "user_db") if self.miopen.get(k + "_writable") is False
        ]
        if unwritable:
            parts.append("not writable: " + ", ".join(str(self.miopen.get(k)) for k in unwritable))
        return "; ".join(parts)

    def _miopen_failure(
        self, stderr_lines: list[str], devices: tuple[DeviceResult, ...]
    ) -> Failure | None:
        """Every stage passed, but MIOpen complained about its cache or database on stderr."""
        lines = [ln for ln in stderr_lines if "miopen" in ln.lower() or "sqlite" in ln.lower()]
        if not lines or "miopen-cache-or-db-error" not in text_kb_ids(lines, stage="conv"):
            return None
        where = self.miopen_where()
        return build_failure(
            stage="conv",
            kind=FailureKind.ERROR,
            message="convolutions ran, but MIOpen reported kernel-cache or database errors"
            + (f" ({where})" if where else ""),
            stderr_lines=stderr_lines,
            devices=devices,
        )

    def hints(self) -> tuple[list[str], list[str]]:
        """Notes and KB ids for things that are not failures (a slow first convolution)."""
        notes: list[str] = []
        ids: list[str] = []
        for st in self.stages:
            if st.stage != "conv" or not st.ok:
                continue
            rows = st.data.get("dtypes")
            for dtype, row in rows.items() if isinstance(rows, dict) else ():
                if not isinstance(row, dict):
                    continue
                # check_first_s: the very first convolution (library load + search);
                # first_s: the first call at the timed ResNet shape (a search of its own).
                first = max(_number(row.get("first_s")), _number(row.get("check_first_s")))
                repeat = _number(row.get("repeat_ms")) / 1e3
                if first >= SLOW_FIRST_S and first >= _SLOW_FIRST_FACTOR * repeat:
                    rocm = self.torch.flavour == "rocm"
                    what = (
                        "MIOpen searched for and compiled kernels"
                        if rocm
                        else "the convolution library loaded and chose kernels"
                    )
                    where = self.miopen_where() if rocm or self.miopen else ""
                    notes.append(
                        f"conv {dtype}: first call {first:.1f} s, then {repeat * 1e3:.1f} ms: "
                        + what
                        + (f"; they are kept in {where}" if where else "")
                    )
                    if self.torch.flavour == "rocm":
                        ids.append("miopen-slow-first-run")
                    break
        return notes, ids

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
        deadline: float | None = None,
        strays: list[int] | None = None,
    ) -> VerifyResult:
        devices = self.devices()
        if deadline is not None:
            failure: Failure | None = self._deadline_failure(deadline, stderr_lines, devices)
        else:
            failure = self._failure(returncode, hung, killed, timeout, stderr_lines, devices)
        if (
            failure is not None
            and "miopen-cache-or-db-error" in failure.kb_ids
            and self.miopen
            and "kernel cache" not in failure.message
        ):
            failure = dataclasses.replace(
                failure, message=f"{failure.message} (MIOpen: {self.miopen_where()})"
            )
        notes, hint_ids = self.hints()
        if strays:
            notes.append(
                f"killed {len(strays)} process(es) the child left outside its process group"
            )
        return VerifyResult(
            ok=failure is None,
            python=self.python,
            stages=tuple(self.stages),
            devices=devices,
            failure=failure,
            torch=self.torch,
            notes=(*self.notes(devices), *notes),
            elapsed=elapsed,
            child_elapsed=self.end_elapsed,
            level=self.level,
            env=dict(self.env),
            kb_hints=tuple(hint_ids),
        )

    def _deadline_failure(
        self, deadline: float, stderr_lines: list[str], devices: tuple[DeviceResult, ...]
    ) -> Failure:
        stage = self.current or (self.stages[-1].stage if self.stages else "import")
        return build_failure(
            stage=stage,
            kind=FailureKind.HANG,
            message=f"the run did not finish within its {deadline:g} s deadline "
            f"(the child kept printing during {stage_label(stage)} but never finished)",
            stderr_lines=stderr_lines,
            devices=devices,
        )


def _finite(value: Any) -> float | None:
    """A float from the child's JSON; None for anything that is not a finite number."""
    if isinstance(value, bool):
        return None
    try:
        got = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return got if got == got and abs(got) != float("inf") else None


def _number(value: Any) -> float:
    """A float from the child's JSON, 0.0 for anything that is not a finite number."""
    got = _finite(value)
    return 0.0 if got is None else got


def _index(value: Any) -> int:
    """A device index from the child's JSON; 0 for anything that is not a small integer."""
    return (
        value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 4096 else 0
    )


def _version_or_none(value: object) -> str | None:
    """A ``torch.version.hip``/``cuda`` string as the child sent it; anything else is None."""
    return value if isinstance(value, str) and value else None
