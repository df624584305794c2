"""What a verify run produces: stages, devices, the failure, and their JSON form.

These frozen dataclasses are the contract between the verify runner, the CLI,
the TUI and the fixes engineer (`rocmfix fix --verify`). They hold plain data
only, so they can cross threads and be rendered or serialised anywhere.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from typing import Any

SCHEMA = "rocmfix.verify/1"

# Stage ids in the order the child runs them, with the label people see.
STAGES: dict[str, str] = {
    "import": "import torch",
    "init": "runtime init",
    "enumerate": "enumerate devices",
    "alloc": "allocate",
    "copy": "host/device copy",
    "matmul": "small matmul vs CPU float64",
    "dtypes": "fp32/fp16/bf16 matmuls",
    "perf": "timed large matmul",
    "conv": "conv2d block fwd+bwd (MIOpen)",
    "train": "training step (autocast+GradScaler)",
    "sync": "synchronize",
    "allreduce": "all-reduce across GPUs",
    "pg": "nccl process group + all-reduce",
    "compile": "torch.compile (Inductor/Triton)",
    "memory": "fill most free memory",
}

PER_DEVICE: frozenset[str] = frozenset(
    {"alloc", "copy", "matmul", "dtypes", "perf", "conv", "train", "memory"}
)
"""Stages run once per tested GPU; the others run once per run."""


@dataclass(frozen=True)
class Level:
    """A named set of stages, like the run levels of AMD's RVS or DCGM's ``-r 1..4``."""

    name: str
    stages: tuple[str, ...]
    """Stage ids in the order the child runs them (allreduce only with 2+ GPUs)."""
    expected: str
    """What a user should expect it to take on one healthy GPU."""
    budget: float
    """Seconds of work beyond the stall timeout before the run is cut off."""

    def required(self, devices: int, cpu: bool = False, ranks: int = 0) -> tuple[str, ...]:
        """Stages a passing run must report (with ``devices`` GPUs, or a CPU rehearsal)."""
        world = ranks if cpu else devices
        out = []
        for stage in self.stages:
            if stage == "init" and cpu:
                continue
            if stage == "allreduce" and world < 2:
                continue
            out.append(stage)
        return tuple(out)


_QUICK = ("import", "init", "enumerate", "alloc", "copy", "matmul", "dtypes", "sync")
LEVELS: dict[str, Level] = {
    "quick": Level("quick", _QUICK, "a few seconds after the torch import", 60.0),
    "standard": Level(
        "standard",
        (*_QUICK[:-1], "perf", "conv", "train", "sync", "allreduce"),
        "about 10-15 s on a datacenter GPU; the first conv run can take minutes while MIOpen "
        "searches and compiles kernels",
        240.0,
    ),
    "full": Level(
        "full",
        (*_QUICK[:-1], "perf", "conv", "train", "sync", "pg", "compile", "memory"),
        "about 30-40 s on a datacenter GPU, more on a cold torch.compile cache",
        480.0,
    ),
}
DEFAULT_LEVEL = "standard"

DTYPES: tuple[str, ...] = ("fp32", "fp16", "bf16")


class FailureKind(str, enum.Enum):
    """Why a run is not ok; the value is what JSON and the table show."""

    CRASH = "crash"
    """The child was killed by a signal (segfault, abort...)."""
    HANG = "hang"
    """The child stopped reporting progress for longer than the timeout."""
    ERROR = "error"
    """The child raised an exception, exited non-zero or spoke nonsense."""
    NO_GPU = "no-gpu"
    """torch runs but sees no usable GPU."""
    WRONG_RESULT = "wrong-result"
    """A matmul returned NaN, inf, zeros or numbers off the float64 reference."""
    SLOW = "slow"
    """Everything is correct but far below the GPU's peak throughput."""


def stage_label(stage: str) -> str:
    """Human label of a stage id (the id itself when unknown)."""
    return STAGES.get(stage, stage)


@dataclass(frozen=True)
class StageEvent:
    """One stage that completed (passed or failed); passed to ``on_stage``."""

    stage: str
    """Stage id, a key of ``STAGES``."""
    ok: bool
    """True when the stage passed."""
    seconds: float
    """Time the child spent in the stage."""
    device: int | None = None
    """GPU index for per-device stages, else None."""
    detail: str = ""
    """One line saying what was measured (e.g. ``max rel err 1.2e-07``)."""
    data: dict[str, Any] = field(default_factory=dict, compare=False)
    """What the stage measured, as the child reported it (conv timings, losses...)."""

    @property
    def label(self) -> str:
        return stage_label(self.stage)

    def to_json(self) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "label": self.label,
            "device": self.device,
            "ok": self.ok,
            "seconds": round(self.seconds, 4),
            "detail": self.detail,
            "data": self.data,
        }


@dataclass(frozen=True)
class DeviceResult:
    """One GPU as the child saw it, with measured and peak throughput."""

    index: int
    name: str
    arch: str
    tflops: dict[str, float] = field(default_factory=dict)
    """Achieved TFLOPS per dtype (``fp32``, ``fp16``, ``bf16``)."""
    peak_tflops: dict[str, float] = field(default_factory=dict)
    """Dense peak TFLOPS per dtype from the packaged table; empty when unknown."""
    peak_name: str | None = None
    """Row of the peak table that matched the device name, or None."""
    peak_unverified: bool = False
    """True when the peak values are marked unverified in the table."""
    memory_gib: float | None = None

    def ratio(self, dtype: str) -> float | None:
        """Achieved / peak for ``dtype``, or None when either is unknown."""
        peak = self.peak_tflops.get(dtype)
        got = self.tflops.get(dtype)
        if not peak or got is None:
            return None
        return got / peak

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "name": self.name,
            "arch": self.arch,
            "memory_gib": self.memory_gib,
            "tflops": {k: round(v, 2) for k, v in self.tflops.items()},
            "peak_tflops": dict(self.peak_tflops),
            "peak_name": self.peak_name,
            "peak_unverified": self.peak_unverified,
        }


@dataclass(frozen=True)
class Failure:
    """Why the run failed and which KB entries explain it."""

    stage: str
    """The stage that was running (or checked) when it failed."""
    kind: FailureKind
    message: str
    signal: str | None = None
    """Signal name (``SIGSEGV``) when kind is crash."""
    stderr_tail: tuple[str, ...] = ()
    """The last lines the child wrote on stderr."""
    kb_ids: tuple[str, ...] = ()
    """KB entry ids, best explanation first."""

    def to_json(self) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "kind": self.kind.value,
            "signal": self.signal,
            "message": self.message,
            "stderr_tail": list(self.stderr_tail),
            "kb_ids": list(self.kb_ids),
        }


@dataclass(frozen=True)
class TorchInfo:
    """The torch build of the target interpreter, as the child reported it."""

    version: str = ""
    flavour: str = ""
    """rocm | cuda | cpu."""
    hip: str | None = None
    cuda: str | None = None


@dataclass(frozen=True)
class VerifyResult:
    """The outcome of one ``run_verify`` call."""

    ok: bool
    python: str
    stages: tuple[StageEvent, ...] = ()
    devices: tuple[DeviceResult, ...] = ()
    failure: Failure | None = None
    torch: TorchInfo = TorchInfo()
    notes: tuple[str, ...] = ()
    """Things worth saying that are not failures (non-ROCm GPU, unknown peak)."""
    elapsed: float = 0.0
    """Wall time of the whole run in the parent, seconds."""
    child_elapsed: float | None = None
    """Time the child reported for its own work, seconds (None if it never finished)."""
    level: str = DEFAULT_LEVEL
    """quick | standard | full."""
    env: dict[str, str] = field(default_factory=dict)
    """Variables in the child's environment that change MIOpen/HIP/RCCL/Triton behaviour."""
    kb_hints: tuple[str, ...] = ()
    """KB ids worth reading although nothing failed (e.g. a slow first convolution)."""

    def to_json(self) -> dict[str, Any]:
        """The ``rocmfix.verify/1`` object printed by ``rocmfix verify --json``.

        Standard JSON whatever the child sent: a NaN or infinite number is null.
        """
        return _finite(self._json())

    def _json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "ok": self.ok,
            "python": self.python,
            "torch": {
                "version": self.torch.version,
                "flavour": self.torch.flavour,
                "hip": self.torch.hip,
                "cuda": self.torch.cuda,
            },
            "stages": [s.to_json() for s in self.stages],
            "devices": [d.to_json() for d in self.devices],
            "failure": self.failure.to_json() if self.failure else None,
            "notes": list(self.notes),
            "elapsed": round(self.elapsed, 3),
            "child_elapsed": None if self.child_elapsed is None else round(self.child_elapsed, 3),
            "level": self.level,
            "required_stages": list(LEVELS[self.level].stages) if self.level in LEVELS else [],
            "env": dict(self.env),
            "kb_hints": list(self.kb_hints),
        }


def _finite(value: Any) -> Any:
    """``value`` with every NaN or infinite float replaced by None (JSON has neither)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value
