"""Every snapshot fixture in tests/data/host gives the statuses and root causes of its machine."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from rocmfix.probes import Status, exit_code, root_causes, run_checks
from rocmfix.snapshot import SnapshotHost

HOSTS = Path(__file__).parent / "data" / "host"
_spec = importlib.util.spec_from_file_location("upstream_machines", HOSTS / "upstream_machines.py")
assert _spec and _spec.loader
_upstream = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_upstream)
MACHINES: dict[str, dict] = _upstream.MACHINES

# scenario -> (checks that must fail, checks that must warn, first root cause or None)
EXPECTED: dict[str, tuple[set[str], set[str], str | None]] = {
    "rx7900xtx-healthy": (set(), set(), None),
    "mi300x-healthy": (set(), set(), None),
    "rx7600-override": (set(), set(), None),
    "rx6700xt-no-override": (
        {"gpu-arch-vs-torch", "math-libs-for-gfx"},
        set(),
        "no-binary-for-gpu",
    ),
    "apu-plus-dgpu": (set(), {"integrated-gpu"}, "integrated-gpu-selected"),
    "not-in-render-group": (
        {"device-nodes", "user-groups", "torch-build"},
        set(),
        "kfd-permission-denied",
    ),
    "docker-no-kfd": (
        {"container", "device-nodes", "rocminfo", "torch-build"},
        {"shm-size"},
        "kfd-device-missing",
    ),
    "wsl": (set(), {"wsl"}, "wsl-limitations"),
    "cuda-torch-on-amd": ({"torch-build"}, set(), "cuda-build-on-amd"),
    "cpu-torch-on-amd": ({"torch-build"}, set(), "cpu-only-build"),
    "rocm62-old-wheel-ldpath": (
        {"rocm-libraries", "torch-rocm-vs-system"},
        {"env-other"},
        "rocm-library-version-mismatch",
    ),
    "rx580-gfx803": (
        {"gpu-arch-vs-torch", "math-libs-for-gfx"},
        set(),
        "unsupported-gpu-architecture",
    ),
    "amdgpu-not-loaded": (
        {"amdgpu-module", "gpu-list", "device-nodes", "rocminfo", "torch-build"},
        set(),
        "kfd-device-missing",
    ),
}


def _run(name: str):
    host = SnapshotHost(HOSTS / name)
    return {r.id: r for r in run_checks(host, python=host.python)}


def test_every_fixture_directory_has_an_expectation_and_a_readme() -> None:
    dirs = {p.name for p in HOSTS.iterdir() if (p / "snapshot.json").exists()}
    assert dirs == set(EXPECTED) | set(MACHINES)
    for name in dirs:
        assert "https://" in (HOSTS / name / "README.md").read_text()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_reports_its_statuses_and_root_cause(name: str) -> None:
    fails, warns, cause = EXPECTED[name]
    results = _run(name)
    got_fails = {i for i, r in results.items() if r.status is Status.FAIL}
    got_warns = {i for i, r in results.items() if r.status is Status.WARN}
    assert got_fails == fails
    assert warns <= got_warns
    assert not [r for r in results.values() if r.status is Status.ERROR]
    causes = root_causes(results.values())
    assert (causes[0]["id"] if causes else None) == cause
    assert exit_code(results.values()) == (1 if fails else 0)


def test_gfx1031_without_override_names_the_exact_override_value() -> None:
    arch = _run("rx6700xt-no-override")["gpu-arch-vs-torch"]
    assert "no-binary-for-gpu" in arch.kb_ids
    assert arch.fix == "export HSA_OVERRIDE_GFX_VERSION=10.3.0"


def test_gfx1102_with_override_runs_as_gfx1100_and_the_override_is_accepted() -> None:
    results = _run("rx7600-override")
    assert results["env-hsa-override"].status is Status.OK
    assert "gfx1102 runs as gfx1100" in results["gpu-arch-vs-torch"].summary


def test_gfx803_is_reported_unsupported_with_no_override_offered() -> None:
    arch = _run("rx580-gfx803")["gpu-arch-vs-torch"]
    assert "unsupported-gpu-architecture" in arch.kb_ids
    assert "HSA_OVERRIDE_GFX_VERSION=" not in arch.fix


def test_five_places_of_the_gfx_are_shown_side_by_side() -> None:
    arch = _run("rx7900xtx-healthy")["gpu-arch-vs-torch"]
    sources = [e.source.split()[0] for e in arch.evidence]
    assert sources == ["1", "2", "3", "4", "5"]
    assert "gfx1100" in arch.evidence[0].value


def test_stale_group_membership_is_called_a_relogin_problem() -> None:
    groups = _run("not-in-render-group")["user-groups"]
    assert "log out and in" in groups.summary


def test_apu_beside_dgpu_suggests_hiding_the_igpu_by_index() -> None:
    igpu = _run("apu-plus-dgpu")["integrated-gpu"]
    assert igpu.fix.startswith("export ROCR_VISIBLE_DEVICES=0")


def test_wsl_does_not_blame_the_missing_kfd() -> None:
    results = _run("wsl")
    assert results["device-nodes"].status is Status.SKIP
    assert results["amdgpu-module"].status is Status.SKIP


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_upstream_machine_names_its_cause(name: str) -> None:
    """Machines users posted upstream: statuses, the cause named first, and no wrong claim."""
    want = MACHINES[name]["expect"]
    results = _run(name)
    got = {s: {i for i, r in results.items() if r.status is s} for s in Status}
    assert got[Status.FAIL] == want["fail"]
    assert want.get("warn", set()) <= got[Status.WARN]
    assert want.get("skip", set()) <= got[Status.SKIP]
    assert not got[Status.ERROR]
    causes = [c["id"] for c in root_causes(results.values(), limit=99)]
    assert (causes[0] if causes else None) == want["first"]
    assert want.get("top3", set()) <= set(causes[:3])
    assert not want.get("not_ranked", set()) & set(causes)
    for check_id, text in want.get("fix_has", {}).items():
        assert text in results[check_id].fix, results[check_id].fix
    for check_id, text in want.get("fix_lacks", {}).items():
        assert text not in results[check_id].fix, results[check_id].fix
    for check_id, text in want.get("summary_has", {}).items():
        assert text in results[check_id].summary, results[check_id].summary


def test_upstream_fixture_readmes_cite_their_post_and_name_placeholders() -> None:
    for name, spec in MACHINES.items():
        readme = (HOSTS / name / "README.md").read_text()
        assert all(url in readme for url in spec["sources"])
        assert all(p in readme for p in spec.get("placeholders", ()))


def test_no_cause_another_check_rules_out_is_ranked() -> None:
    from rocmfix.probes import CheckResult

    confirm = CheckResult("device-nodes", "t", Status.FAIL, "s", kb_ids=("kfd-permission-denied",))
    other = CheckResult("kernel-log", "t", Status.WARN, "s", kb_ids=("gpu-hang-or-reset",))
    rules_out = CheckResult(
        "user-groups", "t", Status.OK, "s", ruled_out=("kfd-permission-denied",)
    )
    assert [c["id"] for c in root_causes([confirm, other])][0] == "kfd-permission-denied"
    assert [c["id"] for c in root_causes([confirm, other, rules_out])] == ["gpu-hang-or-reset"]


def test_confidence_follows_explains_scale() -> None:
    from rocmfix.probes import CheckResult

    fail = CheckResult("a", "t", Status.FAIL, "s", kb_ids=("no-gpu-visible",))
    warn = CheckResult("b", "t", Status.WARN, "s", kb_ids=("no-gpu-visible",))
    assert root_causes([warn])[0]["confidence"] < 0.5 <= root_causes([fail])[0]["confidence"]
    assert root_causes([fail, warn])[0]["confidence"] > root_causes([fail])[0]["confidence"]


def test_a_dkms_module_not_built_for_this_kernel_ranks_before_the_missing_device_it_causes() -> (
    None
):
    causes = [c["id"] for c in root_causes(_run("navi14-dkms-not-built-for-kernel").values())]
    assert causes[:2] == ["amdgpu-dkms-build-failure", "kfd-device-missing"]


def test_kfd_enomem_is_not_called_a_permission_problem() -> None:
    results = _run("navi14-dkms-not-built-for-kernel")
    nodes = results["device-nodes"]
    assert "ENOMEM" in nodes.summary and "kfd-permission-denied" in nodes.ruled_out
    assert "render" not in nodes.fix and "usermod" not in nodes.fix
    assert results["rocminfo"].kb_ids == ("kfd-device-missing",)


def test_out_of_resources_alone_is_a_hint_not_a_cause() -> None:
    info = _run("rx580-2048sp-old-kfd-4104")["rocminfo"]
    assert info.status is Status.WARN and not info.kb_ids
    assert "4104" in info.evidence[0].value


def test_pci_id_names_the_chip_of_a_card_without_a_kfd_node() -> None:
    listing = _run("rx580-cluster-node-no-atomics")["gpu-list"]
    assert "Polaris10 (gfx803)" in listing.summary
    assert "unsupported-gpu-architecture" in listing.kb_ids


def test_gfx701_is_older_than_anything_supported_not_too_new() -> None:
    listing = _run("hawaii-r9-290-gfx701")["gpu-list"]
    assert listing.kb_ids == ("unsupported-gpu-architecture",)


def test_wsl_fix_swaps_the_wheel_runtime_for_amds_wsl_one() -> None:
    results = _run("wsl-rx7900xtx-bundled-runtime")
    assert "libhsa-runtime64" in results["rocm-libraries"].fix
    assert "rocm-library-version-mismatch" not in results["torch-rocm-vs-system"].ruled_out


def test_unrecorded_dkms_and_efi_are_unknown_not_facts() -> None:
    results = _run("raven-2400g-kernel-4.18")
    assert results["dkms-status"].status is Status.SKIP
    assert "not recorded" in results["dkms-status"].summary
    assert results["secure-boot"].status is Status.SKIP


def _without_errnos(name: str, tmp_path: Path) -> SnapshotHost:
    """The fixture as a snapshot from before errnos were recorded (``rw`` booleans only)."""
    import json
    import shutil

    dest = tmp_path / name
    shutil.copytree(HOSTS / name, dest)
    data = json.loads((dest / "snapshot.json").read_text())
    data.pop("rw_errno", None)
    (dest / "snapshot.json").write_text(json.dumps(data))
    return SnapshotHost(dest)


def test_an_old_snapshot_takes_the_open_errno_from_rocminfo(tmp_path: Path) -> None:
    host = _without_errnos("navi14-dkms-not-built-for-kernel", tmp_path)
    results = {r.id: r for r in run_checks(host, python=host.python)}
    assert "ENOMEM" in results["device-nodes"].summary
    assert "kfd-permission-denied" not in {c["id"] for c in root_causes(results.values(), 99)}


def test_an_old_snapshot_does_not_blame_groups_the_user_is_in(tmp_path: Path) -> None:
    host = _without_errnos("docker-4x-mi100-permission", tmp_path)
    host.data["commands"] = []  # no rocminfo message to name the reason
    host.gids = (*host.gids, 109)  # the process is in the nodes' group
    results = {r.id: r for r in run_checks(host, python=host.python, ids=["device-nodes"])}
    assert "kfd-permission-denied" not in results["device-nodes"].kb_ids
