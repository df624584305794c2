"""The wheel is what users install: it must carry the KB, the packaged facts
and every data file, and must not pull torch. Built and installed for real into
a fresh virtual environment, then run from another directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow
# the installed copy only: a PYTHONPATH pointing at src/ would shadow it
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(REPO)]
    try:
        import hatchling  # noqa: F401

        cmd.insert(4, "--no-build-isolation")
    except ImportError:
        pass
    subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    (whl,) = out.glob("rocmfix-*.whl")
    return whl


def test_the_wheel_carries_the_kb_and_the_packaged_facts(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "rocmfix/kb/errors.yaml" in names
    for data in (
        "gfx-targets.yaml",
        "gpu-peak-tflops.yaml",
        "pytorch-rocm-wheels.yaml",
        "rocm-facts.yaml",
    ):
        assert f"rocmfix/data/{data}" in names
    assert "rocmfix/verify/child.py" in names
    assert "rocmfix/rocmfix.tcss" in names
    assert "rocmfix/demo/train.log" in names
    assert any(
        n.startswith("rocmfix/demo/snapshot/") and n.endswith("snapshot.json") for n in names
    )


def test_the_wheel_does_not_depend_on_torch(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        meta = next(n for n in zf.namelist() if n.endswith("METADATA"))
        requires = [
            line
            for line in zf.read(meta).decode().splitlines()
            if line.startswith("Requires-Dist:")
        ]
    assert requires and not any("torch" in line and "extra" not in line for line in requires)


def test_an_installed_wheel_finds_its_kb_from_another_directory(
    wheel: Path, tmp_path: Path
) -> None:
    venv = tmp_path / "venv"
    # A clean venv, as a user makes one: no system site-packages, so every dependency
    # the wheel needs must come from its own metadata (pip fetches them or takes them
    # from its cache); a missing Requires-Dist fails here.
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    proc = subprocess.run(
        [str(py), "-m", "pip", "install", "-q", str(wheel)],
        capture_output=True,
        env=ENV,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    probe = subprocess.run(
        [
            str(py),
            "-c",
            "import sys, importlib.util as u; print(u.find_spec('torch') is None, sys.prefix)",
        ],
        capture_output=True,
        env=ENV,
        text=True,
        check=True,
    ).stdout.split()
    assert probe == ["True", str(venv)], probe  # torch stays out; the venv is its own prefix
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = subprocess.run(
        [str(py), "-c", "import rocmfix.kb.loader as l; print(l.builtin_kb_path())"],
        cwd=elsewhere,
        capture_output=True,
        env=ENV,
        text=True,
        check=True,
    ).stdout.strip()
    assert where.startswith(str(venv)), where
    proc = subprocess.run(
        [str(venv / "bin" / "rocmfix"), "explain", "--json", "hipErrorNoBinaryForGpu gfx1031"],
        cwd=elsewhere,
        capture_output=True,
        env=ENV,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["matches"][0]["id"] == "no-binary-for-gpu"
    assert out["matches"][0]["params"]["hsa_override"] == "10.3.0"
