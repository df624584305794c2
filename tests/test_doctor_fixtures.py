"""Every snapshot fixture in tests/data/host gives the statuses and root causes of its machine."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmfix.probes import Status, exit_code, root_causes, run_checks
from rocmfix.snapshot import SnapshotHost

HOSTS = Path(__file__).parent / "data" / "host"

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
    "rx580-gfx803": ({"gpu-arch-vs-torch", "math-libs-for-gfx"}, set(), "no-binary-for-gpu"),
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
    assert dirs == set(EXPECTED)
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


def test_gfx1102_with_override_runs_as_gfx1100_and_native_wheels_are_advised() -> None:
    # The override works on this old torch, but wheels target gfx1102 natively from 2.7
    # (pytorch#147761): a warning that points at them, not a root cause.
    results = _run("rx7600-override")
    env = results["env-hsa-override"]
    assert env.status is Status.WARN and not env.kb_ids
    assert "rocm7.2" in env.fix and "unset HSA_OVERRIDE_GFX_VERSION" in env.fix
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
