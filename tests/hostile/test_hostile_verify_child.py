"""A verify child that lies: protocol lines with values no real child sends.

``rocmfix verify --json`` promises one standard JSON object; whatever numbers a
broken or hostile child reports, what comes out must parse with a strict parser.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

from hostile_util import cli, deadline


def _strict(text: str) -> object:
    def refuse(word: str) -> object:
        raise ValueError(f"non-standard JSON constant {word}")

    return json.loads(text, parse_constant=refuse)


def test_non_finite_numbers_from_the_child_still_give_standard_json(tmp_path: Path) -> None:
    fake = tmp_path / "python"
    fake.write_text(
        f"#!{sys.executable}\n"
        + textwrap.dedent(
            """
            import sys
            def say(line): sys.stdout.write(line + "\\n"); sys.stdout.flush()
            say('{"event": "start", "stage": "import"}')
            say('{"event": "done", "stage": "import", "data": {"version": "2.5.1+rocm6.2", "flavour": "rocm"}}')
            say('{"event": "done", "stage": "enumerate", "data": {"devices": [{"index": 0, "name": "AMD Instinct MI300X", "arch": "gfx942", "memory_gib": NaN}]}}')
            say('{"event": "done", "stage": "perf", "device": 0, "seconds": Infinity, "data": {"tflops": {"fp32": NaN, "fp16": Infinity, "bf16": -1e999}, "size": 8192}}')
            say('{"event": "end", "elapsed": -Infinity}')
            """
        )
    )
    fake.chmod(0o755)
    with deadline(20):
        got = cli(["verify", "--python", str(fake), "--level", "quick", "--timeout", "5", "--json"])
    got.no_traceback()
    doc = _strict(got.out)
    assert isinstance(doc, dict) and doc["schema"] == "rocmfix.verify/1"
    # a rate the child could not give is not a measured 0.0 TFLOPS
    (device,) = doc["devices"]  # type: ignore[index]
    assert device["tflops"] == {}, device
    with deadline(20):
        text = cli(["verify", "--python", str(fake), "--level", "quick", "--timeout", "5"])
    text.no_traceback()
    gpu_row = next(line for line in text.out.splitlines() if "MI300X" in line)
    assert "0.0" not in gpu_row and "-" in gpu_row, text.out


def test_wrong_types_from_the_child_keep_the_schema_types(tmp_path: Path) -> None:
    fake = tmp_path / "python"
    fake.write_text(
        f"#!{sys.executable}\n"
        + textwrap.dedent(
            """
            import sys
            def say(line): sys.stdout.write(line + "\\n"); sys.stdout.flush()
            say('{"event": "done", "stage": "import", "data": {"version": 5, "flavour": ["rocm"], "hip": {"a": 1}, "cuda": 12}}')
            say('{"event": "end", "elapsed": 0.1}')
            """
        )
    )
    fake.chmod(0o755)
    got = cli(["verify", "--python", str(fake), "--level", "quick", "--timeout", "5", "--json"])
    got.no_traceback()
    torch = _strict(got.out)["torch"]  # type: ignore[index]
    # rocmfix.verify/1: torch.hip and torch.cuda are a version string or null
    assert all(torch[k] is None or isinstance(torch[k], str) for k in ("hip", "cuda")), torch


def test_json_nested_past_the_recursion_limit_is_junk_not_a_traceback(tmp_path: Path) -> None:
    fake = tmp_path / "python"
    fake.write_text(
        f"#!{sys.executable}\nimport sys\n"
        "sys.stdout.write('ROCMFIX-PROBE:' + '[' * 100000 + '\\n')\n"
        'sys.stdout.write(\'{"event": "done", "stage": "import", "data": \' + \'[\' * 100000 + \'\\n\')\n'
    )
    fake.chmod(0o755)
    with deadline(20):
        got = cli(["verify", "--python", str(fake), "--level", "quick", "--timeout", "5", "--json"])
    got.no_traceback()
    assert _strict(got.out)["ok"] is False  # type: ignore[index]
    with deadline(20):
        doctor = cli(["doctor", "--python", str(fake), "--json", "--timeout", "5"])
    doctor.no_traceback()
    build = next(c for c in _strict(doctor.out)["checks"] if c["id"] == "torch-build")  # type: ignore[index]
    assert "crashed" not in build["summary"], build  # bad probe output, not a broken check
