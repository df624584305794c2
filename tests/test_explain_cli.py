"""`rocmfix explain` as users and scripts call it: the JSON contract, exit
codes, stdin and files, and clear one-line errors instead of tracebacks."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rocmfix.cli import main

NO_BINARY = "RuntimeError: HIP error: hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"


def run_cli(
    *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "rocmfix", *args],
        input=stdin,
        capture_output=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def test_json_output_is_one_object_with_the_documented_shape(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["explain", "--json", NO_BINARY + " gfx1031"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["schema"] == "rocmfix.explain/1"
    assert out["input"] == {"bytes": len(NO_BINARY + " gfx1031"), "lines": 1}
    top = out["matches"][0]
    assert top["id"] == "no-binary-for-gpu" and top["confidence"] >= 0.5
    assert set(top) >= {"id", "title", "confidence", "evidence", "params", "fixes", "references"}
    assert top["evidence"][0]["line"] == 1
    assert top["params"]["gfx"] == "gfx1031"
    assert top["params"]["hsa_override"] == "10.3.0"
    assert isinstance(out["benign"], list)


def test_the_override_value_is_filled_into_the_fix(capsys: pytest.CaptureFixture[str]) -> None:
    main(["explain", "--json", NO_BINARY + " (gfx1031)"])
    fixes = json.loads(capsys.readouterr().out)["matches"][0]["fixes"]
    assert any("10.3.0" in json.dumps(f) for f in fixes)


def test_text_with_no_rocm_cause_exits_1_with_no_confident_match(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["explain", "--json", "ValueError: invalid literal for int() with base 10: 'abc'"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1
    assert all(m["confidence"] < 0.5 for m in out["matches"])


def test_stdin_is_read_with_a_dash() -> None:
    log = b"epoch 1 loss 0.3\n" * 50 + NO_BINARY.encode() + b"\n"
    proc = run_cli("explain", "--json", "-", stdin=log)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["matches"][0]["id"] == "no-binary-for-gpu"
    assert out["matches"][0]["evidence"][0]["line"] == 51


def test_a_gzip_file_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "train.log.gz"
    with gzip.open(path, "wb") as fh:
        fh.write(b"step\n" * 100 + NO_BINARY.encode() + b"\n")
    assert main(["explain", "--json", "--file", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["input"]["lines"] == 101


def test_a_missing_file_is_one_line_on_stderr_and_exit_2() -> None:
    proc = run_cli("explain", "--file", "/nonexistent/train.log")
    assert proc.returncode == 2
    assert b"Traceback" not in proc.stderr
    assert b"no such file" in proc.stderr
    assert proc.stdout == b""


def test_binary_garbage_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "core"
    import random

    # Random bytes can spell a signature ("wsl") by chance: binary input is never explained.
    path.write_bytes(random.Random(7).randbytes(200_000) + b"wsl")
    proc = run_cli("explain", "--file", str(path))
    assert proc.returncode == 2 and b"binary" in proc.stderr and b"Traceback" not in proc.stderr


def test_no_input_is_a_usage_error() -> None:
    proc = run_cli("explain")
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr


def test_a_broken_user_kb_file_warns_and_explain_still_works(tmp_path: Path) -> None:
    kbd = Path(os.environ["XDG_CONFIG_HOME"]) / "rocmfix" / "kb.d"
    kbd.mkdir(parents=True)
    (kbd / "bad.yaml").write_text("entries: [ {id: x\n")
    proc = run_cli("explain", "--json", NO_BINARY)
    assert proc.returncode == 0
    assert b"bad.yaml" in proc.stderr and b"Traceback" not in proc.stderr
    json.loads(proc.stdout)


def test_human_output_fits_80_columns_and_has_no_colour_when_piped() -> None:
    proc = run_cli("explain", NO_BINARY + " gfx1031", env={"COLUMNS": "80"})
    text = proc.stdout.decode()
    assert proc.returncode == 0
    assert "\x1b[" not in text
    copied = ("run: ", "$ ", "- http")  # commands and URLs are printed whole, never wrapped
    prose = [ln for ln in text.splitlines() if not ln.strip().startswith(copied)]
    assert max(len(line) for line in prose) <= 80
    assert "no-binary-for-gpu" in text and "HSA_OVERRIDE_GFX_VERSION=10.3.0" in text


def test_chinese_output_with_lang_zh() -> None:
    proc = run_cli("explain", "--lang", "zh", NO_BINARY)
    text = proc.stdout.decode()
    assert "原因" in text


def test_the_locale_chooses_chinese() -> None:
    proc = run_cli("explain", NO_BINARY, env={"LANG": "zh_CN.UTF-8"})
    assert "原因" in proc.stdout.decode()


def test_version_flag() -> None:
    proc = run_cli("--version")
    assert proc.returncode == 0 and proc.stdout.startswith(b"rocmfix ")


def test_every_subcommand_has_help() -> None:
    from rocmfix.cli import COMMANDS

    for name in COMMANDS:
        proc = run_cli(name, "--help")
        assert proc.returncode in (0, 2), name
        assert b"Traceback" not in proc.stderr, name


def test_check_confirms_the_cause_on_a_recorded_gfx1031_machine_and_fills_the_override(
    capsys: pytest.CaptureFixture[str],
) -> None:
    snap = Path(__file__).parent / "data" / "host" / "rx6700xt-no-override"
    code = main(["explain", "--json", "--check", "--snapshot", str(snap), NO_BINARY])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    verdict = out["checks"]["no-binary-for-gpu"]
    assert verdict["verdict"] == "confirmed"
    assert "10.3.0" in (verdict["fix"] or "")
    top = out["matches"][0]
    assert top["params"]["gfx"] == "gfx1031"
    assert any(f["params"].get("HSA_OVERRIDE_GFX_VERSION") == "10.3.0" for f in top["fixes"])


def test_check_rules_out_a_cpu_build_on_a_healthy_rocm_machine(
    capsys: pytest.CaptureFixture[str],
) -> None:
    snap = Path(__file__).parent / "data" / "host" / "rx7900xtx-healthy"
    main(
        [
            "explain",
            "--json",
            "--check",
            "--snapshot",
            str(snap),
            "AssertionError: Torch not compiled with CUDA enabled",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert out["matches"][0]["id"] == "cpu-only-build"
    assert out["checks"]["cpu-only-build"]["verdict"] == "ruled out"


def test_the_first_real_error_is_told_apart_from_its_follow_ons(
    capsys: pytest.CaptureFixture[str],
) -> None:
    log = "\n".join(
        ["step 1 loss 0.5"] * 30
        + [NO_BINARY]
        + [
            "During handling of the above exception, another exception occurred:",
            "RuntimeError: NCCL communicator was aborted",
        ]
    )
    main(["explain", "--json", log])
    out = json.loads(capsys.readouterr().out)
    assert out["first_error"] == {"line": 31, "text": NO_BINARY}
    assert out["matches"][0]["id"] == "no-binary-for-gpu"


def test_counts_read_as_words_in_both_languages(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    main(["explain", "HIP out of memory. Tried to allocate 2.00 GiB"])
    assert "read 1 line (" in capsys.readouterr().out
    log = tmp_path / "train.log"
    log.write_text("".join(f"step {i}\n" for i in range(30)) + "RuntimeError: HIP out of memory\n")
    main(["explain", "--lang", "zh", "--file", str(log)])
    out = capsys.readouterr().out
    assert "字节" in out and "位于第 31 行：" in out, out[:400]


def test_top_zero_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["explain", "--top", "0", "HIP out of memory"])
    assert stop.value.code == 2
    assert "--top" in capsys.readouterr().err


def test_commands_and_urls_are_printed_whole_on_a_narrow_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from rocmfix.kb.loader import load_kb

    monkeypatch.setenv("COLUMNS", "40")
    main(["explain", "hipErrorNoBinaryForGpu gfx1031"])
    lines = capsys.readouterr().out.splitlines()
    assert "run: rocmfix fix set-env HSA_OVERRIDE_GFX_VERSION=10.3.0" in [s.strip() for s in lines]
    for ref in load_kb().get("no-binary-for-gpu").references:
        assert f"- {ref}" in [s.strip() for s in lines], ref


def test_check_on_a_machine_without_a_gpu_reports_the_failing_checks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snap = tmp_path / "no-gpu"
    snap.mkdir()
    torch = {"python": "/usr/bin/python3", "flavour": "cpu", "version": "2.5.1+cpu"}
    (snap / "snapshot.json").write_text(
        json.dumps({"schema": "rocmfix.snapshot/1", "python": "/usr/bin/python3", "torch": torch})
    )
    main(
        [
            "explain",
            "--json",
            "--check",
            "--snapshot",
            str(snap),
            "RuntimeError: No HIP GPUs are available",
        ]
    )
    verdict = json.loads(capsys.readouterr().out)["checks"]["no-gpu-visible"]
    assert verdict["verdict"] == "not confirmed"
    assert "nothing either way" not in verdict["summary"]
    assert "gpu-list fail" in verdict["summary"]
    # No AMD GPU: a CPU torch is not this machine's fault (issue 10 item 5), so torch-build skips.
    assert "cpu-only-build" not in verdict["summary"]


@pytest.mark.parametrize("columns", ["60", "80", "100"])
@pytest.mark.parametrize("lang", ["C.UTF-8", "zh_CN.UTF-8"])
def test_a_command_in_prose_is_never_split_and_each_fix_shows_its_risk(
    columns: str, lang: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # users copy `rocminfo | grep -m1 -o 'gfx[0-9a-f]*'` from the fix text: a line break
    # inside it pastes as two commands (issue 16, item 10)
    monkeypatch.setenv("COLUMNS", columns)
    monkeypatch.setenv("LANG", lang)
    for var in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        monkeypatch.delenv(var, raising=False)
    main(["explain", "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"])
    out = capsys.readouterr().out
    spans = [span for line in out.splitlines() for span in line.split("`")[1::2]]
    assert "rocminfo | grep -m1 -o 'gfx[0-9a-f]*'" in spans, out
    for line in out.splitlines():
        assert line.count("`") % 2 == 0, line  # no span opens on one line and closes on the next
    risk = "风险" if lang.startswith("zh") else "[risk: low]"
    assert out.count(risk) >= 2, out
