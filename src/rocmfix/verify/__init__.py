"""`rocmfix verify`: prove the GPU works and say how fast it is.

The parent side (this package minus ``child.py``) never imports torch. It runs
``child.py`` in the target interpreter with a timeout and turns what happens,
including crashes and hangs, into a ``VerifyResult``. Import from here:
``run_verify``, ``VerifyResult``, ``StageEvent``, ``DeviceResult``, ``Failure``.
"""

from __future__ import annotations

from rocmfix.verify.model import (
    DEFAULT_LEVEL,
    LEVELS,
    SCHEMA,
    STAGES,
    DeviceResult,
    Failure,
    FailureKind,
    Level,
    StageEvent,
    TorchInfo,
    VerifyResult,
)
from rocmfix.verify.runner import DEFAULT_TIMEOUT, run_verify

__all__ = [
    "DEFAULT_TIMEOUT",
    "SCHEMA",
    "STAGES",
    "DEFAULT_LEVEL",
    "LEVELS",
    "DeviceResult",
    "Failure",
    "FailureKind",
    "Level",
    "StageEvent",
    "TorchInfo",
    "VerifyResult",
    "run_verify",
]
