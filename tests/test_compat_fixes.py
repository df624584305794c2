"""Filled-in fixes follow the compatibility model: the cases issue 10 found breaking machines.

Logs here are written for the test in the shape HIP, rocBLAS and pip print them;
they are not taken from the frozen evaluation split.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rocmfix.kb.loader import load_kb
from rocmfix.kb.matcher import explain_text
from rocmfix.kb.render import render_fixes
from rocmfix.probes import Status, run_checks
from rocmfix.snapshot import SnapshotHost

FIX = Path(__file__).parent / "data" / "host"
_PLACEHOLDER = re.compile(r"<[a-z_]+>|\{[a-z_]+\}")


def _match(text: str, entry_id: str):  # type: ignore[no-untyped-def]
    for m in explain_text(text).matches:
        if m.entry.id == entry_id:
            return m
    raise AssertionError(f"{entry_id} not matched")


def _all_fix_text(m) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(" ".join([f.text, *f.commands, json.dumps(dict(f.params))]) for f in m.fixes())


IGPU_LOG = """\
torch 2.7.1+rocm6.2.4
rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx1036
hipErrorNoBinaryForGpu: Unable to find code object for all current devices!
  Devices:
    gfx1100 - [Found]
    gfx1036 - [Not Found]
Aborted (core dumped)
"""


def test_an_igpu_beside_a_7900xtx_gets_hidden_not_a_global_override() -> None:
    m = _match(IGPU_LOG, "no-binary-for-gpu")
    assert "hsa_override" not in m.params
    text = _all_fix_text(m)
    assert "10.3.0" not in text
    assert any(f.action == "hide-igpu" for f in m.fixes())
    assert m.params["rocm_version"] == "6.2.4"  # the full local tag, not rocm6.2


RX9070_LOG = """\
torch==2.5.1+rocm6.2
RuntimeError: HIP error: invalid device function
HIP kernel errors might be asynchronously reported at some other API call.
rocBLAS error: Cannot read TensileLibrary.dat: Illegal seek for GPU arch : gfx1201
"""


def test_an_rx9070xt_is_never_planned_onto_a_wheel_without_gfx1201() -> None:
    m = _match(RX9070_LOG, "no-binary-for-gpu")
    assert m.params["install_index"] == "rocm7.2"
    text = _all_fix_text(m)
    assert "whl/rocm6.2" not in text and "torch==2.5" not in text


@pytest.mark.parametrize(
    ("gfx", "torch"),
    [("gfx1101", "2.5.1+rocm6.2"), ("gfx1102", "2.5.1+rocm6.2"), ("gfx1150", "2.10.0+rocm7.0")],
)
def test_natively_supported_gpus_never_get_11_0_0(gfx: str, torch: str) -> None:
    log = (
        f"torch {torch}\n"
        "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n"
        f"  Devices:\n    {gfx} - [Not Found]\n"
    )
    m = _match(log, "no-binary-for-gpu")
    assert "hsa_override" not in m.params
    assert "11.0.0" not in _all_fix_text(m)
    assert m.params["install_index"] == "rocm7.2"


def test_an_rx6700xt_alone_gets_the_sourced_override() -> None:
    log = (
        "torch 2.11.0+rocm7.2\n"
        "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n"
        "  Devices:\n    gfx1031 - [Not Found]\n"
    )
    m = _match(log, "no-binary-for-gpu")
    assert m.params["hsa_override"] == "10.3.0"


def test_prefer_hipblaslt_is_offered_only_when_hipblaslt_failed() -> None:
    rocblas = "rocBLAS error: Cannot read TensileLibrary.dat: Illegal seek for GPU arch : gfx1103\n"
    m = _match(rocblas, "rocblas-tensile-missing")
    assert "TORCH_BLAS_PREFER_HIPBLASLT" not in _all_fix_text(m)
    lt = (
        rocblas
        + "rocblaslt error: Cannot read /opt/rocm/lib/hipblaslt/library/TensileLibrary_lazy_gfx1103.dat\n"
    )
    m = _match(lt, "rocblas-tensile-missing")
    assert "TORCH_BLAS_PREFER_HIPBLASLT" in _all_fix_text(m)


@pytest.mark.parametrize(("torch", "offered"), [("2.9.1+rocm6.4", False), ("2.11.0+rocm7.2", True)])
def test_expandable_segments_only_where_rocm_supports_it(torch: str, offered: bool) -> None:
    log = (
        f"torch {torch}\n"
        "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total"
        " capacity of 23.98 GiB of which 1.20 GiB is free. Of the allocated memory 18.1 GiB is"
        " allocated by PyTorch, and 3.9 GiB is reserved by PyTorch but unallocated.\n"
    )
    m = _match(log, "gpu-out-of-memory")
    fixes = [f for f in m.fixes() if "PYTORCH_CUDA_ALLOC_CONF" in f.params]
    assert bool(fixes) is offered
    if fixes:
        assert fixes[0].params.get("session") is True and fixes[0].risk == "medium"


def test_gpu_manager_is_disabled_only_with_evidence_of_a_rewrite() -> None:
    m = _match(
        "gpu-manager.service is running on my Ubuntu box with an RX 6800\n", "gpu-manager-conflict"
    )
    assert not any(f.action == "disable-gpu-manager" for f in m.fixes())
    m = _match(
        "Every boot gpu-manager overwrites xorg.conf and my amdgpu setup is gone\n"
        "/var/log/gpu-manager.log\n",
        "gpu-manager-conflict",
    )
    assert any(f.action == "disable-gpu-manager" for f in m.fixes())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_fix_ever_shows_a_placeholder(lang: str) -> None:
    kb = load_kb()
    for entry in kb.entries:
        for params in ({}, {"gfx": "gfx1100"}):
            for fix in render_fixes(entry.fixes, params, lang):
                shown = " ".join([fix.text, *fix.commands])
                assert not _PLACEHOLDER.search(shown), (entry.id, shown)


def test_an_unknown_value_says_what_to_run_to_learn_it() -> None:
    kb = load_kb()
    entry = kb.get("cuda-build-on-amd")
    assert entry is not None
    manual = [f for f in render_fixes(entry.fixes, {}) if f.action is None and f.commands]
    joined = " ".join(c for f in manual for c in f.commands)
    assert "rocmfix install-plan" in joined and "--index-url" not in joined


def test_every_entry_with_caveats_has_them_in_chinese() -> None:
    for entry in load_kb().entries:
        if entry.caveats:
            assert entry.caveats.get("zh"), entry.id


def test_explain_zh_prints_chinese_risk_labels_and_no_invented_override() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "rocmfix", "explain", "--lang", "zh", "-"],
        input=IGPU_LOG,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode in (0, 1), proc.stderr
    assert not re.search(r"风险[:：] *(low|medium|high)", proc.stdout) and "风险：低" in proc.stdout
    assert "hsa_override" not in proc.stdout


# --- doctor: every GPU judged -------------------------------------------------


def _mixed_host(tmp_path: Path, env: dict[str, str], rocminfo_name: str = "gfx1030") -> Path:
    """An RX 6600 (node 1) and an MI210 (node 2), built from the RX 6700 XT fixture."""
    dest = tmp_path / "mixed"
    shutil.copytree(FIX / "rx6700xt-no-override", dest)
    nodes = dest / "root/sys/class/kfd/kfd/topology/nodes"
    props = (nodes / "1/properties").read_text()
    (nodes / "1/properties").write_text(
        props.replace("gfx_target_version 100301", "gfx_target_version 100302")
    )
    (nodes / "2").mkdir()
    (nodes / "2/properties").write_text(
        props.replace("gfx_target_version 100301", "gfx_target_version 90010")
        .replace("drm_render_minor 128", "drm_render_minor 129")
        .replace("location_id 2816", "location_id 3072")
    )
    meta = json.loads((dest / "snapshot.json").read_text())
    meta["env"].update(env)
    rocminfo = (
        "ROCk module is loaded\n==========\nHSA Agents\n==========\n"
        "*******\nAgent 1\n*******\n  Name:                    AMD Ryzen 9\n"
        "  Device Type:             CPU\n  Node:                    0\n"
        "*******\nAgent 2\n*******\n  Name:                    gfx1030\n"
        "  Marketing Name:          AMD Radeon RX 6600\n  Device Type:             GPU\n"
        "  Node:                    1\n"
        f"*******\nAgent 3\n*******\n  Name:                    {rocminfo_name}\n"
        "  Marketing Name:          AMD Instinct MI210\n  Device Type:             GPU\n"
        "  Node:                    2\n*** Done ***\n"
    )
    meta["commands"] = [c for c in meta["commands"] if c["argv"] != ["rocminfo"]] + [
        {
            "argv": ["rocminfo"],
            "missing": False,
            "returncode": 0,
            "stderr": "",
            "stdout": rocminfo,
            "timed_out": False,
        }
    ]
    (dest / "snapshot.json").write_text(json.dumps(meta))
    return dest


def test_a_stale_global_override_on_an_mi210_beside_an_rx6600_fails(tmp_path: Path) -> None:
    host = SnapshotHost(_mixed_host(tmp_path, {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}))
    res = {
        r.id: r for r in run_checks(host, ids=["env-hsa-override", "rocminfo", "gpu-arch-vs-torch"])
    }
    env = res["env-hsa-override"]
    assert env.status is Status.FAIL and "memory-access-fault" in env.kb_ids
    assert "gfx90a, node 2" in env.summary and "iGPU" not in env.summary
    assert "HSA_OVERRIDE_GFX_VERSION_1=10.3.0" in env.fix
    assert res["rocminfo"].status is Status.FAIL and "gfx90a" in res["rocminfo"].summary
    assert res["gpu-arch-vs-torch"].status is Status.FAIL


def test_a_per_node_override_for_the_rx6600_only_is_fine(tmp_path: Path) -> None:
    host = SnapshotHost(
        _mixed_host(tmp_path, {"HSA_OVERRIDE_GFX_VERSION_1": "10.3.0"}, rocminfo_name="gfx90a")
    )
    res = {r.id: r for r in run_checks(host, ids=["env-hsa-override", "rocminfo"])}
    assert res["env-hsa-override"].status is Status.OK
    assert res["rocminfo"].status is Status.OK


def test_no_known_override_for_strix_halo(tmp_path: Path) -> None:
    dest = tmp_path / "strix"
    shutil.copytree(FIX / "rx6700xt-no-override", dest)
    props = dest / "root/sys/class/kfd/kfd/topology/nodes/1/properties"
    props.write_text(
        props.read_text().replace("gfx_target_version 100301", "gfx_target_version 110501")
    )
    meta = json.loads((dest / "snapshot.json").read_text())
    meta["env"]["HSA_OVERRIDE_GFX_VERSION"] = "11.0.0"
    (dest / "snapshot.json").write_text(json.dumps(meta))
    res = {
        r.id: r
        for r in run_checks(SnapshotHost(dest), ids=["env-hsa-override", "gpu-arch-vs-torch"])
    }
    env = res["env-hsa-override"]
    assert env.status is not Status.OK and "known override" not in env.summary
    assert "no-binary-for-gpu" not in res["gpu-arch-vs-torch"].ruled_out
