"""What the interactive session works on: which machine, which HOME, which interpreter.

The app is the same in normal and demo mode; only this object differs. In
normal mode checks read this machine (``LocalHost``), fixes plan against the
real HOME and verify runs the user's interpreter. In demo mode checks replay
the bundled snapshot, fixes write to a throwaway HOME, and verify runs for
real only when a GPU is present (otherwise the recorded result is returned,
marked as recorded). Plain Python: no textual import, nothing printed; the
screens call these methods from workers.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from rocmfix.errors import InputError

Runner = Callable[[tuple[str, ...], float], None]


@dataclass
class Session:
    """The target of every action the UI takes."""

    python: str = sys.executable
    """Interpreter whose torch is probed and verified."""
    snapshot: Path | None = None
    """A recorded machine for the doctor to read instead of this one."""
    home: Path | None = None
    """Throwaway HOME for fixes (demo); None means the user's real HOME."""
    demo: bool = False
    lang: str = "en"
    verify_device: str = "0"
    """``cpu`` rehearses verify without a GPU (tests)."""
    verify_level: str = "standard"
    """quick | standard | full: the verify screen and verify-after-fix both use it."""
    real_gpu: bool | None = None
    """Demo only: run verify for real. None means probe for a GPU."""
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    def use_python(self, path: str) -> None:
        """Check and verify ``path``'s torch from now on (fixes are planned for it too)."""
        self.python = path
        self._cache.pop("context", None)

    # ------------------------------------------------------------ knowledge base

    def matcher(self) -> Any:
        """The compiled matcher for the built-in (and user) knowledge base."""
        if "matcher" not in self._cache:
            from rocmfix.kb.loader import load_kb
            from rocmfix.kb.matcher import matcher_for

            self._cache["matcher"] = matcher_for(load_kb())
        return self._cache["matcher"]

    def kb(self) -> Any:
        return self.matcher().kb

    def explain(self, text: str) -> Any:
        """``Explanation`` of a pasted text."""
        return self.matcher().explain_text(text)

    # ------------------------------------------------------------ machine

    def host(self) -> Any:
        """Where checks read from: the snapshot, else this machine."""
        if self.snapshot is not None:
            from rocmfix.snapshot import SnapshotHost

            return SnapshotHost(self.snapshot)
        from rocmfix.host import LocalHost

        return LocalHost()

    @property
    def machine_label(self) -> str:
        return self.machine_name("en")

    def machine_name(self, lang: str = "en") -> str:
        """What the checks read, in ``lang``: this machine, a snapshot or the demo's."""
        from rocmfix.screens.texts import t

        if self.demo:
            return t(lang, "demo_machine")
        if self.snapshot:
            return t(lang, "snapshot", name=self.snapshot.name)
        return t(lang, "this_machine")

    @property
    def fix_target(self) -> str:
        """Where a fix is planned and applied, said plainly.

        A snapshot only changes what the doctor reads: the plan's values and
        its writes are this machine's (its GPUs, its HOME), and the label says
        so rather than naming the snapshot.
        """
        if self.demo:
            return "the demo machine's throwaway HOME"
        if self.snapshot is not None:
            return f"this machine (not snapshot {self.snapshot.name}, which the doctor reads)"
        return "this machine"

    def run_checks(
        self, ids: tuple[str, ...] | None, on_result: Callable[[Any], None]
    ) -> tuple[Any, ...]:
        """Run doctor checks (all when ``ids`` is None); ``on_result`` gets each as it lands."""
        from rocmfix.probes import CHECKS, run_checks

        known = None if ids is None else tuple(i for i in ids if i in CHECKS)
        return run_checks(self.host(), ids=known, python=self._probe_python(), on_result=on_result)

    def check_ids(self) -> tuple[str, ...]:
        from rocmfix.probes import CHECKS

        return tuple(CHECKS)

    def check_titles(self) -> dict[str, str]:
        from rocmfix.probes import CHECKS

        return {cid: check.title for cid, check in CHECKS.items()}

    def _probe_python(self) -> str:
        if self.snapshot is not None:
            return str(self.host().python)
        return self.python

    # ------------------------------------------------------------ fixes

    def context(self) -> Any:
        """The ``rocmfix.actions.Context`` fixes are planned for."""
        if "context" in self._cache:
            return self._cache["context"]
        from rocmfix.actions import Context, GpuInfo, detect

        if self.home is None:
            ctx = detect(python=self.python)
        else:
            from rocmfix.demo import demo_env
            from rocmfix.probes.gpus import read_gpus

            gpus = read_gpus(self.host()) if self.snapshot else ()
            ctx = Context(
                home=self.home,
                env=demo_env(self.home),
                user="alex",
                is_root=False,
                gpus=tuple(
                    GpuInfo(i, str(g.gfx), str(g.name), bool(g.integrated))
                    for i, g in enumerate(gpus)
                ),
                python=self.python,
            )
        self._cache["context"] = ctx
        return ctx

    @property
    def state_dir(self) -> Path:
        return Path(self.context().state_dir)

    def system_params(self) -> dict[str, str]:
        """KB placeholder values read from the machine (gfx, override, ROCm version)."""
        from rocmfix.commands.fix import system_params

        return system_params(self.context())

    def plan(self, action: str, params: Mapping[str, object]) -> Any:
        """The ``Plan`` of one fix; raises ActionError for refused values."""
        from rocmfix.actions import get_action

        return get_action(action).plan(params, self.context())

    def apply(self, plan: Any, runner: Runner) -> Any:
        from rocmfix.actions import apply_plan

        return apply_plan(plan, state=self.state_dir, runner=runner)

    def undo(self, record_id: str, force: bool = False) -> Any:
        from rocmfix.actions import undo

        return undo(record_id, force=force, state=self.state_dir)

    def history(self) -> tuple[Any, ...]:
        from rocmfix.actions import history

        return history(self.state_dir)

    # ------------------------------------------------------------ verify

    def will_record(self) -> bool:
        """True when verify will replay the demo's recorded result instead of running."""
        if not self.demo:
            return False
        if self.real_gpu is None:
            from rocmfix.demo import gpu_present

            self.real_gpu = gpu_present()
        return not self.real_gpu

    def verify(self, on_stage: Callable[[Any], None]) -> tuple[Any, bool]:
        """Run the GPU test; returns (VerifyResult, recorded)."""
        if self.will_record():
            from rocmfix.demo import recorded_verify

            result = recorded_verify(fixed=self._demo_fixed())
            for stage in result.stages:
                on_stage(stage)
            return result, True
        from rocmfix.verify import run_verify

        return run_verify(
            self.python,
            device=self.verify_device,
            on_stage=on_stage,
            env=self.fix_env(),
            level=self.verify_level,
        ), False

    def fix_env(self) -> dict[str, str | None]:
        """Variables the applied set-env fixes put in the shell's startup file.

        A new terminal would have them; this process was started before, so
        verify's child gets them explicitly (None: removed).
        """
        out: dict[str, str | None] = {}
        for record in self.history():
            if record.undoable and record.action in ("set-env", "hide-igpu"):
                for name, value in record.params.items():
                    if name.isupper():
                        out[name] = None if value is None else str(value)
        return out

    def _demo_fixed(self) -> bool:
        """The demo counts as fixed while an applied record sets the override."""
        return any(r.undoable and r.params.get("HSA_OVERRIDE_GFX_VERSION") for r in self.history())


LOAD_HEAD = 8 * 1024 * 1024
LOAD_TAIL = 56 * 1024 * 1024
"""The session holds at most this much of a log: its start (versions, settings) and its
end (the failure). Reading all of a 2 GB log took 3.4 GB of memory; the command line
(`rocmfix explain -f`) streams all of it."""


def bounded_log_text(stream: BinaryIO, name: str) -> str:
    """The text of a log stream, its middle left out (one marker line) past 64 MiB."""
    from rocmfix import safeio

    data, skipped = safeio.read_head_tail(stream, LOAD_HEAD, LOAD_TAIL)
    if not skipped:
        return data.decode("utf-8", "replace")
    head, tail = data[:LOAD_HEAD], data[LOAD_HEAD:]
    cut = head.rfind(b"\n") + 1 or len(head)  # whole lines on both sides of the marker
    start = tail.find(b"\n") + 1
    skipped += len(head) - cut + start
    marker = (
        f"[rocmfix: {skipped / 1e6:,.1f} MB in the middle of this log are not loaded here; "
        f"`rocmfix explain -f {name}` reads all of it]\n"
    )
    return head[:cut].decode("utf-8", "replace") + marker + tail[start:].decode("utf-8", "replace")


@functools.lru_cache(maxsize=4)
def _read_cached(path: str, mtime: float) -> str:
    from rocmfix.extract import open_input

    with open_input(path) as stream:
        head = stream.peek(8192)[:8192] if hasattr(stream, "peek") else b""
        if b"\x00" in head:
            raise InputError(f"{path}: looks like binary data, not a text log")
        return bounded_log_text(stream, path)


def read_log(path: str | Path) -> str:
    """The text of a log file (plain or gzip). Raises InputError with a one-line reason."""
    p = Path(path)
    try:
        mtime = p.stat().st_mtime
    except FileNotFoundError:
        raise InputError(
            f"{p}: no such file", hint="check the path, or pipe the log: ... | rocmfix -"
        ) from None
    except OSError as err:
        raise InputError(f"{p}: cannot read ({err.strerror})") from None
    try:
        return _read_cached(str(p), mtime)
    except OSError as err:
        raise InputError(f"{p}: cannot read ({err.strerror})") from None
