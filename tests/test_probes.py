"""The check engine: registry, isolation of broken checks, concurrency, JSON schema."""

from __future__ import annotations

import re
import stat
import threading
from pathlib import Path

import pytest
import yaml

from rocmfix.errors import ProbeError
from rocmfix.host import LocalHost
from rocmfix.probes import CHECKS, SCHEMA, Status, run_checks, to_json
from rocmfix.probes.base import CheckResult, check
from rocmfix.probes.install import parse_rocminfo
from rocmfix.snapshot import SnapshotHost

REPO = Path(__file__).resolve().parents[1]
FIX = Path(__file__).parent / "data" / "host"


def test_every_check_id_in_docs_is_implemented() -> None:
    ids = re.findall(r"^\| `([a-z0-9-]+)` \|", (REPO / "docs" / "checks.md").read_text(), re.M)
    assert len(ids) >= 15
    assert set(ids) <= set(CHECKS)


def test_every_check_named_by_the_kb_exists() -> None:
    kb = yaml.safe_load((REPO / "kb" / "errors.yaml").read_text()) or {}
    named = {c for entry in kb.get("entries") or () for c in entry.get("checks") or ()}
    assert named <= set(CHECKS), named - set(CHECKS)


def test_kb_ids_in_results_are_taxonomy_ids() -> None:
    taxonomy = {
        row["id"]
        for row in yaml.safe_load((REPO / "tests" / "data" / "kb-taxonomy.yaml").read_text())
    }
    seen = set()
    for d in FIX.iterdir():
        if (d / "snapshot.json").exists():
            for r in run_checks(SnapshotHost(d)):
                seen.update(r.kb_ids, r.ruled_out)
    assert seen and seen <= taxonomy, seen - taxonomy


def test_a_crashing_check_becomes_an_error_and_the_others_still_run() -> None:
    @check("test-crash", "Crashes")
    def boom(ctx: object) -> CheckResult:
        raise RuntimeError("sysfs went away")

    try:
        results = run_checks(
            SnapshotHost(FIX / "rx7900xtx-healthy"), ids=["test-crash", "gpu-list"]
        )
    finally:
        del CHECKS["test-crash"]
    assert results[0].status is Status.ERROR and "sysfs went away" in results[0].summary
    assert results[1].status is Status.OK


def test_unknown_check_id_is_a_clear_error() -> None:
    with pytest.raises(ProbeError, match="unknown check id: nope"):
        run_checks(SnapshotHost(FIX / "rx7900xtx-healthy"), ids=["nope"])


def test_on_result_sees_every_result_as_it_finishes() -> None:
    seen: list[str] = []
    results = run_checks(SnapshotHost(FIX / "apu-plus-dgpu"), on_result=lambda r: seen.append(r.id))
    assert sorted(seen) == sorted(r.id for r in results) == sorted(CHECKS)


def test_checks_run_concurrently_with_the_torch_probe() -> None:
    threads: set[str] = set()
    host = SnapshotHost(FIX / "rx7900xtx-healthy")
    slow = threading.Event()
    original = host.torch_probe

    def slow_probe(python: str, timeout: float):  # the probe blocks until another check ran
        slow.wait(5)
        return original(python, timeout)

    host.torch_probe = slow_probe  # type: ignore[method-assign]
    results = run_checks(host, on_result=lambda r: (threads.add(r.id), slow.set()))
    assert results and {"os-info", "torch-build"} <= threads


def test_a_hanging_rocminfo_is_reported_as_a_possible_gpu_hang(tmp_path: Path) -> None:
    exe = tmp_path / "rocminfo"
    exe.write_text("#!/bin/sh\n/usr/bin/sleep 30\n")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    (res,) = run_checks(LocalHost(env={"PATH": str(tmp_path)}), ids=["rocminfo"], timeout=0.5)
    assert res.status is Status.FAIL and "gpu-hang-or-reset" in res.kb_ids


def test_json_has_the_documented_schema() -> None:
    data = to_json(run_checks(SnapshotHost(FIX / "cpu-torch-on-amd")))
    assert data["schema"] == SCHEMA == "rocmfix.doctor/1"
    keys = {"id", "title", "status", "summary", "details", "evidence", "kb_ids", "fix"}
    assert all(keys <= set(c) for c in data["checks"])
    assert data["summary"]["root_causes"][0]["id"] == "cpu-only-build"


def test_rocminfo_agents_take_the_first_name_of_each_block() -> None:
    text = (
        "*******\nAgent 1\n*******\n  Name:  AMD Ryzen 9\n  Device Type:  CPU\n"
        "*******\nAgent 2\n*******\n  Name:  gfx1031\n  Marketing Name:  AMD Radeon RX 6700 XT\n"
        "  Node:  1\n  Device Type:  GPU\n  Pool Info:\n    Name:  not-this\n"
    )
    agents = parse_rocminfo(text)
    assert [(a.name, a.device_type, a.node) for a in agents] == [
        ("AMD Ryzen 9", "CPU", None),
        ("gfx1031", "GPU", 1),
    ]


@pytest.mark.parametrize(
    ("value", "status", "kb"),
    [
        ("11.0.0", Status.FAIL, "memory-access-fault"),
        ("10.3", Status.FAIL, "no-gpu-visible"),
        ("10.3.0", Status.OK, None),
    ],
)
def test_override_is_judged_against_the_physical_gfx(
    tmp_path: Path, value: str, status: Status, kb: str | None
) -> None:
    snap = _copy_with_env(tmp_path, "rx6700xt-no-override", {"HSA_OVERRIDE_GFX_VERSION": value})
    (res,) = run_checks(SnapshotHost(snap), ids=["env-hsa-override"])
    assert res.status is status
    assert kb is None or kb in res.kb_ids
    if value == "11.0.0":
        assert "use 10.3.0" in res.summary


@pytest.mark.parametrize(
    ("env", "kb"),
    [
        ({"HIP_VISIBLE_DEVICES": ""}, "no-gpu-visible"),
        ({"CUDA_VISIBLE_DEVICES": "-1"}, "no-gpu-visible"),
        ({"ROCR_VISIBLE_DEVICES": "3"}, "invalid-device-ordinal"),
    ],
)
def test_visibility_variables_that_hide_or_miss_gpus_fail(
    tmp_path: Path, env: dict[str, str], kb: str
) -> None:
    snap = _copy_with_env(tmp_path, "rx7900xtx-healthy", env)
    (res,) = run_checks(SnapshotHost(snap), ids=["env-visible-devices"])
    assert res.status is Status.FAIL and kb in res.kb_ids


def _copy_with_env(tmp_path: Path, name: str, env: dict[str, str]) -> Path:
    import json
    import shutil

    dest = tmp_path / name
    shutil.copytree(FIX / name, dest)
    meta = json.loads((dest / "snapshot.json").read_text())
    meta["env"].update(env)
    (dest / "snapshot.json").write_text(json.dumps(meta))
    return dest


def test_a_working_cuda_torch_on_an_nvidia_machine_is_not_blamed_on_rocm(tmp_path: Path) -> None:
    import json
    import shutil

    snap = tmp_path / "nvidia"
    shutil.copytree(FIX / "amdgpu-not-loaded", snap)
    meta = json.loads((snap / "snapshot.json").read_text())
    meta["torch"] = {
        **(meta.get("torch") or {}),
        "flavour": "cuda", "version": "2.11.0+cu130", "cuda": "13.0", "hip": None,
        "is_available": True, "device_count": 1, "arch_list": ["sm_90"],
        "devices": [{"name": "NVIDIA H200", "gcn_arch_name": "sm_90"}],
    }
    (snap / "snapshot.json").write_text(json.dumps(meta))
    (res,) = run_checks(SnapshotHost(snap), ids=["torch-build"])
    assert res.status is Status.OK
    assert "cuda-build-on-amd" in res.ruled_out and not res.kb_ids
