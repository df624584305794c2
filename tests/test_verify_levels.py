"""Verify levels and the new workload stages, against fake interpreters.

Each fake stands in for a user's interpreter with one kind of trouble: a conv
whose numbers are off, MIOpen complaining about its database, torch.compile
failing, a process group that never forms, and the hostile children of issue
13 (dripping forever, leaving a setsid grandchild, a 1.5 GB line, a bare
``end``). run_verify must say which stage, which kind and which KB ids, come
back on time, and leave nothing running.
"""

from __future__ import annotations

import importlib.util
import os
import resource
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rocmfix.cli import main
from rocmfix.verify import LEVELS, FailureKind, run_verify

FAKES = Path(__file__).parent / "data" / "fake_pythons"


@pytest.fixture(autouse=True)
def _fakes_use_this_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROCMFIX_TEST_PYTHON", sys.executable)


@pytest.fixture(scope="module")
def cpu_torch() -> None:
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed in this interpreter")


def fake(name: str) -> str:
    return str(FAKES / name)


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


# ------------------------------------------------------------------ levels


def test_each_level_names_its_stages_and_expected_time_and_grows_from_the_last() -> None:
    quick, standard, full = (LEVELS[n] for n in ("quick", "standard", "full"))
    assert "perf" not in quick.stages and "conv" not in quick.stages
    assert {"perf", "conv", "train"} <= set(standard.stages)
    assert {"pg", "compile", "memory"} <= set(full.stages)
    assert set(quick.stages) < set(standard.stages) - {"allreduce"} | set(quick.stages)
    assert set(standard.stages) - {"allreduce"} < set(full.stages)
    assert all(level.expected for level in LEVELS.values())


@pytest.mark.parametrize("level", ["quick", "standard", "full"])
def test_the_fake_passes_every_level_and_reports_exactly_its_stages(level: str) -> None:
    result = run_verify(fake("ok"), timeout=10, level=level)
    assert result.ok, result.failure
    assert result.level == level
    assert [s.stage for s in result.stages] == list(LEVELS[level].required(1))
    assert result.to_json()["level"] == level


def test_json_keeps_the_schema_and_adds_level_stage_data_and_env(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    monkeypatch.setenv("MIOPEN_FIND_MODE", "FAST")
    code = main(["verify", "--json", "--level", "standard", "--python", fake("ok_h200")])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["schema"] == "rocmfix.verify/1"
    conv = next(s for s in data["stages"] if s["stage"] == "conv")
    assert conv["data"]["dtypes"]["bf16"]["repeat_ms"] == pytest.approx(2.5)
    assert data["env"]["MIOPEN_FIND_MODE"] == "FAST"
    assert "conv" in data["required_stages"]


def test_an_unknown_level_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["verify", "--level", "extreme", "--python", fake("ok")])
    assert exc.value.code == 2
    assert "quick" in capsys.readouterr().err


# ------------------------------------------------------------------ new failure kinds


def test_a_conv_with_wrong_numbers_is_a_wrong_result_at_conv(cpu_torch: None) -> None:
    result = run_verify(fake("patched_conv_off"), timeout=60, device="cpu")
    assert result.failure is not None
    assert (result.failure.stage, result.failure.kind) == ("conv", FailureKind.WRONG_RESULT)
    assert "fp16 conv2d" in result.failure.message
    # the stages after a failed workload stage still run and are shown
    assert [s.stage for s in result.stages][-2:] == ["train", "sync"]


def test_miopen_database_errors_fail_the_run_naming_the_cache_paths() -> None:
    result = run_verify(fake("miopen_db_error"), timeout=10)
    assert not result.ok and result.failure is not None
    assert result.failure.stage == "conv"
    assert result.failure.kb_ids[0] == "miopen-cache-or-db-error"
    assert "/home/alex/.cache/miopen" in result.failure.message
    assert "/home/alex/.config/miopen" in result.failure.message


def test_a_slow_first_convolution_is_named_as_a_hint_not_a_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    result = run_verify(fake("slow_first_conv"), timeout=10)
    assert result.ok
    assert result.kb_hints == ("miopen-slow-first-run",)
    assert any("first call 14.0 s" in n and ".cache/miopen" in n for n in result.notes)
    assert run_verify(fake("ok"), timeout=10).kb_hints == ()


def test_a_failing_torch_compile_is_a_compile_failure_not_a_crash_of_verify(
    cpu_torch: None,
) -> None:
    result = run_verify(fake("patched_compile_fail"), timeout=60, device="cpu", level="full")
    assert result.failure is not None
    assert (result.failure.stage, result.failure.kind) == ("compile", FailureKind.ERROR)
    assert "triton-or-compile-failure" in result.failure.kb_ids
    assert any("Cannot find a working triton" in ln for ln in result.failure.stderr_tail)
    ok = {s.stage for s in result.stages if s.ok}
    assert {"pg", "memory"} <= ok  # the world-size-1 gloo group passed; verify carried on


def test_a_process_group_that_hangs_is_reported_as_a_hang_at_pg_by_the_fake() -> None:
    started = time.monotonic()
    result = run_verify(fake("pg_hang"), timeout=1.0, level="full")
    assert time.monotonic() - started < 5
    assert result.failure is not None
    assert (result.failure.stage, result.failure.kind) == ("pg", FailureKind.HANG)
    assert result.failure.kb_ids[:2] == ("distributed-rccl-failure", "gpu-hang-or-reset")


def test_the_childs_own_watchdog_ends_a_stuck_process_group_with_its_stack(
    cpu_torch: None,
) -> None:
    # The child's watchdog (3 s) fires long before the parent's stall timeout (60 s).
    started = time.monotonic()
    result = run_verify(
        fake("patched_pg_hang"), timeout=60, device="cpu", level="full", pg_timeout=3
    )
    assert time.monotonic() - started < 60
    assert result.failure is not None
    assert (result.failure.stage, result.failure.kind) == ("pg", FailureKind.HANG)
    assert "did not finish within" in result.failure.message
    assert any("hanging_init" in ln for ln in result.failure.stderr_tail)  # faulthandler's dump
    assert "distributed-rccl-failure" in result.failure.kb_ids


# ------------------------------------------------------------------ issue 13: hostile children


def test_a_child_that_prints_only_end_does_not_pass(capsys: pytest.CaptureFixture[str]) -> None:
    result = run_verify(fake("end_only"), timeout=10)
    assert not result.ok and result.failure is not None
    assert result.failure.kind is FailureKind.ERROR
    assert "never reported" in result.failure.message and "import" in result.failure.message
    assert main(["verify", "--python", fake("end_only")]) == 1
    assert "GPU verified" not in capsys.readouterr().out


def test_a_child_missing_one_required_stage_does_not_pass() -> None:
    # ok's fake reports the standard stages; asking for full makes pg/compile/memory missing
    result = run_verify(fake("ok"), timeout=10, level="quick")
    assert result.ok
    full = run_verify(fake("ok"), timeout=10, level="full")
    assert full.ok  # the fake honours --level
    assert not run_verify(fake("quiet_exit_at_copy"), timeout=10, level="quick").ok


def test_a_child_that_drips_a_line_every_fraction_of_a_second_meets_the_deadline() -> None:
    started = time.monotonic()
    result = run_verify(fake("drip"), timeout=2.0, deadline=3.0)
    took = time.monotonic() - started
    assert result.failure is not None and result.failure.kind is FailureKind.HANG
    assert "3 s deadline" in result.failure.message and result.failure.stage == "conv"
    assert took < 7


def test_a_setsid_double_forked_grandchild_is_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pidfile = tmp_path / "orphan.pid"
    monkeypatch.setenv("FAKE_HELPER_PIDFILE", str(pidfile))
    result = run_verify(fake("setsid_orphan"), timeout=10)
    orphan = int(pidfile.read_text())
    try:
        assert os.getsid(orphan) != os.getsid(0) if _running(orphan) else True
        deadline = time.monotonic() + 3
        while _running(orphan) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _running(orphan)
        assert any("outside its process group" in n for n in result.notes)
    finally:
        if _running(orphan):
            os.kill(orphan, 9)


def test_a_one_and_a_half_gigabyte_line_is_read_in_bounded_memory() -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    result = run_verify(fake("huge_line"), timeout=30)
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert result.ok  # the long junk line is dropped; the protocol after it still counts
    assert grown_mib < 150, f"reading the child grew this process by {grown_mib:.0f} MiB"


# ------------------------------------------------------------------ TUI and replay use the same levels


def test_the_tui_spinner_names_the_next_stage_of_the_sessions_level() -> None:
    from rocmfix.screens.verify import stages_text
    from rocmfix.verify import StageEvent

    done = [StageEvent(s, True, 0.1) for s in LEVELS["quick"].stages[:-1]]
    assert "synchronize" in stages_text(done, running=True, level="quick").plain
    assert "timed large matmul" in stages_text(done, running=True, level="standard").plain


def test_a_recorded_result_with_levels_round_trips_through_json() -> None:
    from rocmfix.demo import verify_from_json

    result = run_verify(fake("slow_first_conv"), timeout=10, level="standard")
    again = verify_from_json(result.to_json())
    assert again.level == "standard" and again.kb_hints == ("miopen-slow-first-run",)
    conv = next(s for s in again.stages if s.stage == "conv")
    assert conv.data["dtypes"]["fp32"]["first_s"] == pytest.approx(14.0)


def test_the_tui_session_runs_verify_at_its_level(monkeypatch: pytest.MonkeyPatch) -> None:
    from rocmfix.screens.session import Session

    session = Session(python=fake("ok"), verify_level="quick")
    result, recorded = session.verify(lambda ev: None)
    assert not recorded and result.ok and result.level == "quick"
    assert Session(python=fake("ok")).verify_level == "standard"


# ------------------------------------------------------------------ a child that lies


_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
_KEYS = ("stage", "device", "seconds", "detail", "data", "kind", "message", "facts", "dtype")
_KEYS += ("tflops", "elapsed", "env", "miopen", "failed")


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {"event": st.sampled_from(["hello", "start", "done", "fail", "progress", "end"])},
            optional={
                "stage": st.sampled_from(["import", "enumerate", "perf", "conv", "pg"]) | _JSONISH,
                "data": st.fixed_dictionaries(
                    {},
                    optional={"devices": _JSONISH, "tflops": _JSONISH, "dtypes": _JSONISH},
                )
                | _JSONISH,
                **{k: _JSONISH for k in _KEYS if k not in ("stage", "data")},
            },
        ),
        max_size=12,
    ),
    st.sampled_from([0, 1, -11, None]),
)
def test_any_protocol_a_child_speaks_gives_a_result_never_a_traceback(
    events: list[dict[str, object]], returncode: int | None
) -> None:
    from rocmfix.verify.accumulate import Accumulator

    acc = Accumulator(python="/x/python", on_stage=None, level="full")
    for event in events:
        acc.feed(event)
    result = acc.finish(
        returncode=returncode,
        hung=False,
        killed=True,
        timeout=5,
        stderr_lines=["MIOpen(HIP): Error [Exec] Db lock has failed to lock"],
        elapsed=0.1,
    )
    import json

    json.dumps(result.to_json())
    assert result.ok is False  # nothing here reports every stage of the full level
