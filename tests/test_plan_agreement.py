"""The doctor's install advice and `fix reinstall-torch` plan the same wheel index.

Both build their ``compat.Machine`` through ``compat.machine_of`` and ask
``compat.plan``; these tests read every recorded machine both ways and compare.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmfix import compat
from rocmfix.actions import Context as FixContext
from rocmfix.actions import GpuInfo, reinstall_torch
from rocmfix.errors import ActionError
from rocmfix.probes import compat_view
from rocmfix.probes.base import Context as ProbeContext
from rocmfix.probes.gpus import read_gpus
from rocmfix.probes.install import system_rocm_version
from rocmfix.probes.system import container_kind, is_wsl
from rocmfix.snapshot import SnapshotHost

HOSTS = Path(__file__).parent / "data" / "host"
MACHINES = sorted(p.name for p in HOSTS.iterdir() if (p / "snapshot.json").exists())


@pytest.mark.parametrize("name", MACHINES)
def test_doctor_and_reinstall_torch_plan_the_same_index(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    host = SnapshotHost(HOSTS / name)
    probe_ctx = ProbeContext(host=host, python="python")
    doctor = compat_view.plan(probe_ctx)
    probe = probe_ctx.torch()
    torch = probe.version if probe and probe.flavour in ("rocm", "cuda", "cpu") else None
    python_version = probe.python_version if probe else None
    # the fix side reads the same facts its own way: GPU list, pip's torch, the Python
    gpus = tuple(
        GpuInfo(i, str(g.gfx), str(g.name), bool(g.integrated), g.node)
        for i, g in enumerate(read_gpus(host))
    )
    fix_ctx = FixContext(
        home=tmp_path,
        env={},
        user="alex",
        is_root=False,
        container=container_kind(host),
        wsl=bool(is_wsl(host)),
        gpus=gpus,
        python="python",
    )
    monkeypatch.setattr(
        reinstall_torch, "system_rocm_version", lambda ctx: system_rocm_version(host)
    )
    monkeypatch.setattr(
        reinstall_torch,
        "read_command",
        lambda argv: (0, f"{python_version}\n", "") if python_version else None,
    )
    have = {"torch": torch} if torch else {}
    machine = reinstall_torch._machine(fix_ctx, "python", have)  # noqa: SLF001
    fix = compat.plan(machine)
    assert (fix.verdict, fix.index) == (doctor.verdict, doctor.index), (name, fix.summary)
    if doctor.index and not doctor.keep:
        assert doctor.index in compat_view.install_advice(probe_ctx)


def test_unlisted_gpus_give_the_plans_own_answer_not_a_separate_refusal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reinstall_torch, "installed", lambda python: {})
    ctx = FixContext(home=tmp_path, env={}, user="alex", is_root=False, gpus=None)
    expected = compat.plan(
        compat.machine_of(None, torch_version=None, python=None, platform="linux", system_rocm=None)
    )
    with pytest.raises(ActionError) as err:
        reinstall_torch.ReinstallTorch.validate({}, ctx)
    assert err.value.message == expected.summary
