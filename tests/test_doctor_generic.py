"""Generic doctor rules, checked on variations of real fixtures rather than one machine each.

Each test takes a machine from tests/data/host, changes the one value the rule is about, and
checks that the verdict follows that value: every GPU is judged, a cause another check rules
out is never ranked, a claim names what it read, and what was not recorded stays unknown.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rocmfix import facts
from rocmfix.probes import Status, root_causes, run_checks
from rocmfix.snapshot import SnapshotHost

HOSTS = Path(__file__).parent / "data" / "host"
AOCC = "rx9070xt-aocc-env-unrecognized-id"
UNRECOGNIZED = "Warning: Agent creation failed.\nThe GPU node has an unrecognized id.\n"


def _variant(tmp_path: Path, name: str, change) -> SnapshotHost:  # type: ignore[no-untyped-def]
    dest = tmp_path / name
    shutil.copytree(HOSTS / name, dest)
    data = json.loads((dest / "snapshot.json").read_text())
    change(data, dest / "root")
    (dest / "snapshot.json").write_text(json.dumps(data))
    return SnapshotHost(dest)


def _run(host: SnapshotHost, ids: list[str] | None = None) -> dict:
    return {r.id: r for r in run_checks(host, python=host.python, ids=ids)}


def _set_rocm(root: Path, version: str | None) -> None:
    for where in ("opt/rocm", "opt/rocm-7.2.1"):
        info = root / where / ".info" / "version"
        header = root / where / "include" / "rocm-core" / "rocm_version.h"
        if version is None:
            info.unlink(missing_ok=True)
            header.unlink(missing_ok=True)
            continue
        major, minor, patch = version.split(".")
        info.write_text(version + "\n")
        header.write_text(
            f"#define ROCM_VERSION_MAJOR {major}\n#define ROCM_VERSION_MINOR {minor}\n"
            f"#define ROCM_VERSION_PATCH {patch}\n"
        )


def _env(data: dict, **values: str | None) -> None:
    for key, value in values.items():
        if value is None:
            data["env"].pop(key, None)
        else:
            data["env"][key] = value


def test_unrecognized_id_under_a_release_older_than_the_gpu_is_rocm_too_old(
    tmp_path: Path,
) -> None:
    def change(data: dict, root: Path) -> None:
        _set_rocm(root, "6.3.0")
        _env(data, LD_LIBRARY_PATH=None)

    results = _run(_variant(tmp_path, AOCC, change))
    info = results["rocminfo"]
    assert info.status is Status.FAIL and info.kb_ids == ("rocm-too-old-for-gpu",)
    assert "ROCm 6.3.0" in info.summary and "6.4.1" in info.summary
    assert root_causes(results.values())[0]["id"] == "rocm-too-old-for-gpu"


def test_unrecognized_id_under_a_release_that_lists_the_gpu_rules_out_too_old(
    tmp_path: Path,
) -> None:
    results = _run(_variant(tmp_path, AOCC, lambda d, r: _env(d, LD_LIBRARY_PATH=None)))
    info = results["rocminfo"]
    assert info.status is Status.WARN and not info.kb_ids
    assert "rocm-too-old-for-gpu" in info.ruled_out
    assert "rocm-too-old-for-gpu" not in {c["id"] for c in root_causes(results.values(), 99)}


def test_unrecognized_id_with_the_release_unknown_is_only_a_possibility(tmp_path: Path) -> None:
    def change(data: dict, root: Path) -> None:
        _set_rocm(root, None)
        _env(data, LD_LIBRARY_PATH=None)

    results = _run(_variant(tmp_path, AOCC, change))
    info = results["rocminfo"]
    assert info.status is Status.WARN and info.kb_ids == ("rocm-too-old-for-gpu",)
    assert "not recorded" in info.summary
    cause = root_causes(results.values())[0]
    assert cause["id"] == "rocm-too-old-for-gpu" and cause["confidence"] < 0.5


def test_unrecognized_id_under_an_override_blames_no_release(tmp_path: Path) -> None:
    def change(data: dict, root: Path) -> None:
        _set_rocm(root, "6.3.0")
        _env(data, LD_LIBRARY_PATH=None, HSA_OVERRIDE_GFX_VERSION="11.0.0")

    info = _run(_variant(tmp_path, AOCC, change), ["rocminfo"])["rocminfo"]
    assert info.status is Status.WARN and not info.kb_ids
    assert "HSA_OVERRIDE_GFX_VERSION=11.0.0" in info.summary


def test_unrecognized_id_with_closed_device_nodes_blames_no_release(tmp_path: Path) -> None:
    def change(data: dict, root: Path) -> None:
        _set_rocm(root, "6.3.0")
        _env(data, LD_LIBRARY_PATH=None)
        for node in data["rw"]:
            data["rw"][node] = False
            data["rw_errno"][node] = "EACCES"

    results = _run(_variant(tmp_path, AOCC, change))
    assert not results["rocminfo"].kb_ids
    assert root_causes(results.values())[0]["id"] == "kfd-permission-denied"


def test_each_gpu_is_judged_the_gpu_the_runtime_skipped_is_named(tmp_path: Path) -> None:
    """Two GPUs: rocminfo lists the gfx1100 and skips the gfx1201; ROCm 6.2 predates only the latter."""

    def change(data: dict, root: Path) -> None:
        _set_rocm(root, "6.2.0")
        _env(data, LD_LIBRARY_PATH=None)
        node = root / "sys/class/kfd/kfd/topology/nodes/2"
        node.mkdir(parents=True)
        (node / "properties").write_text(
            "simd_count 192\ngfx_target_version 110000\nvendor_id 4098\nlocation_id 2048\n"
            "drm_render_minor 129\n"
        )
        agent = (
            "*******\nAgent 2\n*******\n  Name:                    gfx1100\n"
            "  Marketing Name:          AMD Radeon RX 7900 XTX\n  Node:                    2\n"
            "  Device Type:             GPU\n"
        )
        data["commands"] = [c for c in data["commands"] if c["argv"] != ["rocminfo"]]
        data["commands"].append(
            {"argv": ["rocminfo"], "returncode": 0, "stdout": UNRECOGNIZED + agent, "stderr": ""}
        )

    info = _run(_variant(tmp_path, AOCC, change), ["rocminfo"])["rocminfo"]
    assert info.status is Status.FAIL and info.kb_ids == ("rocm-too-old-for-gpu",)
    assert "gfx1201 (node 1)" in info.summary and "gfx1100" not in info.summary


def test_a_kfd_gpu_rocminfo_does_not_list_is_reported(tmp_path: Path) -> None:
    name = "docker-2x-gfx90a-render-gid-healthy"

    def drop_second_agent(data: dict, root: Path) -> None:
        for cmd in data["commands"]:
            if cmd["argv"] == ["rocminfo"]:
                cmd["stdout"] = cmd["stdout"].split("*******\nAgent 3")[0] + "*** Done ***\n"

    info = _run(_variant(tmp_path, name, drop_second_agent), ["rocminfo"])["rocminfo"]
    assert info.status is Status.WARN and "2 (gfx90a)" in info.summary

    def hidden(data: dict, root: Path) -> None:
        drop_second_agent(data, root)
        _env(data, ROCR_VISIBLE_DEVICES="0")

    assert _run(_variant(tmp_path / "h", name, hidden), ["rocminfo"])["rocminfo"].status is (
        Status.OK
    )


def test_gpu_list_names_every_card_kfd_left_out(tmp_path: Path) -> None:
    def second_card(data: dict, root: Path) -> None:
        slot = root / "sys/bus/pci/devices/0000:02:00.0"
        slot.mkdir(parents=True)
        (slot / "vendor").write_text("0x1002\n")
        (slot / "class").write_text("0x030000\n")
        (slot / "device").write_text("0x67df\n")  # Polaris10 (gfx803)

    listing = _run(_variant(tmp_path, "hd8750m-gcn1-ubuntu2404-rocm62", second_card), ["gpu-list"])
    summary = listing["gpu-list"].summary
    assert "0000:01:00.0" in summary and "0000:02:00.0" in summary and "gfx803" in summary


def test_render_nodes_not_recorded_read_as_unknown_not_as_missing(tmp_path: Path) -> None:
    results = _run(SnapshotHost(HOSTS / "hd8750m-gcn1-ubuntu2404-rocm62"), ["device-nodes"])
    nodes = results["device-nodes"]
    assert nodes.status is Status.SKIP and not nodes.kb_ids


def test_release_comparison_is_unknown_without_both_versions() -> None:
    assert facts.rocm_predates("6.3.0", "gfx1201") is True
    assert facts.rocm_predates("6.4.1", "gfx1201") is False
    assert facts.rocm_predates("10.0.0", "gfx1201") is False
    assert facts.rocm_predates(None, "gfx1201") is None
    assert facts.rocm_predates("6.2.0", "gfx1151") is None  # first release not established
    assert facts.rocm_predates("garbage", "gfx1100") is None


def _fixture_names() -> list[str]:
    return sorted(p.name for p in HOSTS.iterdir() if (p / "snapshot.json").exists())


@pytest.mark.parametrize("name", _fixture_names())
def test_no_ranked_cause_is_ruled_out_and_every_named_cause_shows_evidence(name: str) -> None:
    results = _run(SnapshotHost(HOSTS / name))
    ruled = {k for r in results.values() for k in r.ruled_out}
    assert not {c["id"] for c in root_causes(results.values(), 99)} & ruled
    for res in results.values():
        if res.kb_ids and res.status in (Status.FAIL, Status.WARN):
            assert res.evidence, f"{res.id} names {res.kb_ids} without showing what it read"


def _second_kfd_gpu(root: Path, node: int, version: int, bus: int, minor: int) -> None:
    props = root / f"sys/class/kfd/kfd/topology/nodes/{node}/properties"
    props.parent.mkdir(parents=True)
    props.write_text(
        f"simd_count 80\ngfx_target_version {version}\nvendor_id 4098\n"
        f"location_id {bus << 8}\ndrm_render_minor {minor}\n"
    )


def test_math_libraries_are_judged_for_every_gpu_not_the_first(tmp_path: Path) -> None:
    """A gfx1031 beside the gfx1100: the wheel's rocBLAS has gfx1100 files only."""
    host = _variant(
        tmp_path,
        "rx7900xtx-healthy",
        lambda data, root: _second_kfd_gpu(root, 2, 100301, 0x0B, 129),
    )
    libs = _run(host, ["math-libs-for-gfx"])["math-libs-for-gfx"]
    assert libs.status is Status.FAIL and "gfx1031" in libs.summary
    assert "gfx1100" not in libs.summary


def test_math_libraries_follow_each_gpus_own_override(tmp_path: Path) -> None:
    def change(data: dict, root: Path) -> None:
        _second_kfd_gpu(root, 2, 100301, 0x0B, 129)
        _env(data, HSA_OVERRIDE_GFX_VERSION_2="10.3.0")

    libs = _run(_variant(tmp_path, "rx7900xtx-healthy", change), ["math-libs-for-gfx"])
    assert libs["math-libs-for-gfx"].status is Status.OK
    assert "gfx1030" in libs["math-libs-for-gfx"].summary


def test_an_lxc_container_is_told_to_fix_its_device_config_not_to_run_usermod(
    tmp_path: Path,
) -> None:
    def refused(data: dict, root: Path) -> None:
        data["rw_errno"]["/dev/kfd"] = "EACCES"
        for cmd in data["commands"]:
            if cmd["argv"] == ["rocminfo"]:
                cmd["stdout"] = cmd["stdout"].replace("Invalid argument", "Permission denied")

    results = _run(_variant(tmp_path, "proxmox-lxc-rx9070xt-kfd-einval", refused))
    assert results["container"].summary.startswith("lxc container")
    assert "/etc/pve/lxc" in results["device-nodes"].fix
    assert "usermod" not in results["device-nodes"].fix
    assert root_causes(results.values())[0]["id"] == "kfd-permission-denied"


def test_a_dgpu_topology_line_is_only_flagged_for_a_gpu_the_topology_shows_integrated(
    tmp_path: Path,
) -> None:
    name = "gfx1152-krackan-rocm10-hsa-generic-error"
    assert _run(SnapshotHost(HOSTS / name), ["kernel-log"])["kernel-log"].status is Status.WARN

    def other_device(data: dict, root: Path) -> None:
        for cmd in data["commands"]:
            if cmd["argv"] == ["dmesg"]:
                cmd["stdout"] = "amdgpu: Topology: Add dGPU node [0x1002:0x744c]\n"

    log = _run(_variant(tmp_path, name, other_device), ["kernel-log"])["kernel-log"]
    assert log.status is Status.OK


def _install_rocm(root: Path, version: str) -> None:
    (root / "opt/rocm/.info").mkdir(parents=True, exist_ok=True)
    (root / "opt/rocm/.info/version").write_text(version + "\n")


def test_a_system_rocm_older_than_the_gpu_is_a_possible_cause_while_nothing_works(
    tmp_path: Path,
) -> None:
    def change(data: dict, root: Path) -> None:
        _set_rocm(root, "6.3.0")
        _env(data, LD_LIBRARY_PATH=None)
        data["commands"] = [c for c in data["commands"] if c["argv"] != ["rocminfo"]]

    install = _run(_variant(tmp_path, AOCC, change), ["rocm-install"])["rocm-install"]
    assert install.status is Status.WARN and install.kb_ids == ("rocm-too-old-for-gpu",)
    assert "6.4.1" in install.summary


def test_an_old_system_rocm_is_not_blamed_when_torch_sees_the_gpu(tmp_path: Path) -> None:
    host = _variant(
        tmp_path,
        "rx9070xt-healthy-ubuntu2404-nightly-rocm64",
        lambda data, root: _install_rocm(root, "6.2.0"),
    )
    results = _run(host)
    assert results["rocm-install"].status is Status.OK and not results["rocm-install"].kb_ids
    assert "torch uses its own runtime" in results["rocm-install"].summary
    assert root_causes(results.values()) == []


def test_env_other_agrees_with_rocminfo_on_the_folder_it_blames(tmp_path: Path) -> None:
    results = _run(_variant(tmp_path, AOCC, lambda d, r: None), ["rocminfo", "env-other"])
    other = results["env-other"]
    assert results["rocminfo"].kb_ids == ("rocm-library-version-mismatch",)
    assert other.status is Status.WARN and "nothing suspicious" not in other.summary
    assert "/opt/AMD/aocc-compiler-5.1.0/lib" in other.summary
    assert other.kb_ids == ("rocm-library-version-mismatch",)


def test_env_other_does_not_blame_the_folder_when_the_release_is_too_old(tmp_path: Path) -> None:
    # Same path, but ROCm 6.3.0 predates gfx1201: rocminfo blames the release, so the
    # folder is only named, not blamed, and no "nothing suspicious" claim is made either.
    results = _run(_variant(tmp_path, AOCC, lambda d, r: _set_rocm(r, "6.3.0")))
    other = results["env-other"]
    assert results["rocminfo"].kb_ids == ("rocm-too-old-for-gpu",)
    assert other.status is Status.OK and other.kb_ids == ()
    assert "/opt/AMD/aocc-compiler-5.1.0/lib (not read)" in other.summary
    assert "nothing suspicious" not in other.summary


def test_env_other_names_a_foreign_folder_that_holds_a_rocm_runtime_library(
    tmp_path: Path,
) -> None:
    def change(data: dict, root: Path) -> None:
        _env(data, LD_LIBRARY_PATH="/opt/vendor/lib")
        data["listdir"]["/opt/vendor/lib"] = ["libhsa-runtime64.so.1", "libfoo.so"]
        data["commands"] = [c for c in data["commands"] if c["argv"] != ["rocminfo"]]

    other = _run(_variant(tmp_path, AOCC, change), ["env-other"])["env-other"]
    assert other.status is Status.WARN and "libhsa-runtime64.so.1" in other.summary
    assert other.kb_ids == ("rocm-library-version-mismatch",)


@pytest.mark.parametrize(
    ("target_version", "retired"), [(80003, True), (90006, False), (90000, False)]
)
def test_gpu_list_judges_a_retired_gfx_without_torch(
    tmp_path: Path, target_version: int, retired: bool
) -> None:
    # gfx803: ROCm lists it unsupported and no verified wheel targets it. gfx906/gfx900 are
    # unsupported by current ROCm too, but verified wheels target them: not flagged here.
    def change(data: dict, root: Path) -> None:
        props = root / "sys/class/kfd/kfd/topology/nodes/1/properties"
        text = props.read_text().replace(
            "gfx_target_version 80003", f"gfx_target_version {target_version}"
        )
        props.write_text(text)

    host = _variant(tmp_path, "rx580-gfx803", change)
    results = {r.id: r for r in run_checks(host, python=host.python, want_torch=False)}
    listing = results["gpu-list"]
    assert ("unsupported-gpu-architecture" in listing.kb_ids) is retired
    causes = [c["id"] for c in root_causes(results.values())]
    if retired:
        assert listing.status is Status.WARN and "gfx803" in listing.summary
        assert causes[0] == "unsupported-gpu-architecture"
        assert "https://" in listing.details  # the gfx table's sources are printed
    else:
        assert "unsupported-gpu-architecture" not in causes


def test_a_gfx803_stack_that_has_its_kernels_is_not_called_unsupported(tmp_path: Path) -> None:
    # A self-built torch and rocBLAS for gfx803: gpu-list still states the support tables,
    # but gpu-arch-vs-torch read the kernels, so the cause is ruled out and never ranked.
    lib = "home/alex/venv/lib/python3.11/site-packages/torch/lib/rocblas/library"

    def change(data: dict, root: Path) -> None:
        data["torch"]["arch_list"] = ["gfx803"]
        (root / lib / "TensileLibrary_lazy_gfx803.dat").write_text("")

    results = _run(_variant(tmp_path, "rx580-gfx803", change))
    assert "unsupported-gpu-architecture" in results["gpu-list"].kb_ids
    arch = results["gpu-arch-vs-torch"]
    assert arch.status is Status.OK, arch.summary
    assert "unsupported-gpu-architecture" in arch.ruled_out
    causes = [c["id"] for c in root_causes(results.values())]
    assert "unsupported-gpu-architecture" not in causes


@pytest.mark.parametrize("state", ["enabled", "disabled", "masked"])
def test_gpu_manager_enabled_by_default_is_not_a_root_cause(tmp_path: Path, state: str) -> None:
    # Ubuntu enables gpu-manager on every desktop (WantedBy=display-manager.service): on a
    # working RX 7900 XTX its state is named, never ranked, and never rules the cause out
    # unless the service is off.
    def change(data: dict, root: Path) -> None:
        data["commands"].append(
            {
                "argv": ["systemctl", "is-enabled", "gpu-manager"],
                "missing": False,
                "returncode": 0 if state == "enabled" else 1,
                "stdout": state + "\n",
                "stderr": "",
                "timed_out": False,
            }
        )

    results = _run(_variant(tmp_path, "rx7900xtx-healthy", change))
    manager = results["gpu-manager"]
    assert manager.status is Status.OK and state in manager.summary
    assert manager.kb_ids == ()
    assert ("gpu-manager-conflict" in manager.ruled_out) is (state != "enabled")
    assert root_causes(results.values()) == []
