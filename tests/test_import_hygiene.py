"""The explain path and the core never import textual or torch (slow, and a
GPU crash in torch must never take rocmfix down); JSON output avoids rich."""

from __future__ import annotations

import subprocess
import sys

import pytest

CORE = ["rocmfix.kb.matcher", "rocmfix.kb.loader", "rocmfix.extract", "rocmfix.facts", "rocmfix.commands.explain"]


@pytest.mark.parametrize("module", CORE)
def test_core_modules_import_neither_textual_nor_torch(module: str) -> None:
    code = f"import sys, {module}; print(sorted(m for m in ('textual','torch','rich') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "textual" not in out and "torch" not in out


def test_explain_json_imports_no_textual_torch_or_rich() -> None:
    code = (
        "import sys, io, contextlib\n"
        "from rocmfix.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()): main(['explain','--json','hipErrorNoBinaryForGpu'])\n"
        "print(sorted(m for m in ('textual','torch','rich') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().endswith("[]"), out
