"""Issue 13 items 7 and 8: no planted secret or identity leaves the machine, in report or collect."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from hostile_util import cli

from rocmfix.host import CommandResult, LocalHost
from rocmfix.redact import Redactor
from rocmfix.snapshot import RecordingHost

CORPUS = Path(__file__).resolve().parents[1] / "data" / "secrets"
PLANTED = yaml.safe_load((CORPUS / "planted.yaml").read_text(encoding="utf-8"))
SHAPES = (CORPUS / "issue13-shapes.txt").read_text(encoding="utf-8")
NEEDLES = PLANTED["secrets"] + PLANTED["identities"]

# Item 8: what collect stored raw. Values are fake.
ENV = {
    "AZURE_STORAGE_CONNECTION_STRING": "DefaultEndpointsProtocol=https;AccountName=fakeacct;AccountKey=AzureFakeKeyAbc123xyz==",
    "STRIPE_KEY": "sk_live_FakeStripeKey1234567890",
    "DB_PASS": "dbPassFake91",
    "MYSQL_PWD": "mysqlPwdFake82",
    "SSH_CONNECTION": "10.77.1.3 50000 10.77.1.4 22",
    "SLURM_JOB_USER": "jdoefake",
    "NOTIFY_EMAIL": "m.kowalski@example.com",
    "SLACK_URL": "https://hooks.slack.com/services/T0FAKE123/B0FAKE456/XyZfakeWebhookSecret123",
    "HSA_OVERRIDE_GFX_VERSION": "10.3.0",
    "HOME": "/home/mkowalski",
    "USER": "mkowalski",
    "HOSTNAME": "dgx-lab-17",
}
COMMANDS = {
    "dmesg": "[    0.000000] Command line: BOOT_IMAGE=/vmlinuz root=/dev/nvme0n1p2 password=kcmdFakePw46"
    " rd.luks.key=LuksFakeKey37 quiet\n[    3.1] r8169 0000:05:00.0 eth0: RTL8125B, 3c:ec:ef:12:34:56\n"
    "[    9.9] amdgpu 0000:03:00.0: serial number: PF1234XYZ99\n",
    "journalctl": "Dec 01 dgx-lab-17 sshd[1]: Accepted key for mkowalski from 172.16.40.17 port 5\n"
    "Dec 01 dgx-lab-17 systemd[1]: inet6 fe80::3eec:efff:fe12:3456 dead:beef:cafe::feed\n",
    "rocminfo": "  Name:                    gfx942\n  Uuid:                    GPU-8b0a3f4e2d1c4e5f\n"
    "  Marketing Name:          AMD Instinct MI300X\n  Serial Number:           692251001124\n",
}


class PlantedHost(LocalHost):
    """A live-looking host whose env, files and command outputs carry planted secrets."""

    def __init__(self) -> None:
        super().__init__(env=ENV)
        self.user = "mkowalski"

    def run(self, argv, timeout=10.0):  # type: ignore[no-untyped-def, override]
        return CommandResult(0, COMMANDS.get(argv[0], SHAPES), "")

    def read_text(self, path: str) -> str | None:
        if path == "/proc/cmdline":
            return "BOOT_IMAGE=/vmlinuz password=kcmdFakePw46 rd.luks.key=LuksFakeKey37\n"
        if path == "/home/mkowalski/.netrc":
            return SHAPES
        return None


def _leaks(blob: str) -> list[str]:
    low = blob.lower()
    return [n for n in NEEDLES if str(n).lower() in low]


def test_a_snapshot_written_for_sharing_holds_no_planted_secret(tmp_path: Path) -> None:
    rec = RecordingHost(PlantedHost())
    for cmd in COMMANDS:
        rec.run([cmd])
    rec.run(["cat", "shapes"])
    rec.read_text("/proc/cmdline")
    rec.read_text("/home/mkowalski/.netrc")
    rec.stat("/dev/kfd")
    out = tmp_path / "snap"
    rec.write(
        out, "/home/mkowalski/venv/bin/python", redactor=Redactor(["mkowalski"], ["dgx-lab-17"])
    )
    blob = "\n".join(
        [str(p.relative_to(out)) for p in out.rglob("*")]
        + [p.read_text(errors="replace") for p in out.rglob("*") if p.is_file()]
    )
    assert _leaks(blob) == []
    env = json.loads((out / "snapshot.json").read_text())["env"]
    assert env["HSA_OVERRIDE_GFX_VERSION"] == "10.3.0"  # what the checks need stays
    assert "AZURE_STORAGE_CONNECTION_STRING" not in env and "SLURM_JOB_USER" not in env
    assert "gfx942" in blob and "AMD Instinct MI300X" in blob


def test_collect_keeps_only_the_allow_listed_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in ENV.items():
        if name not in ("HOME", "USER"):
            monkeypatch.setenv(name, value)
    out = tmp_path / "snap"
    got = cli(["collect", "--out", str(out), "--no-torch"])
    got.no_traceback()
    assert got.code == 0
    blob = "\n".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file())
    assert [n for n in _leaks(blob) if n in ENV.values() or any(n in v for v in ENV.values())] == []
    assert "redacted" in got.out


def test_report_with_every_planted_shape_leaks_nothing(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    log.write_text(
        SHAPES + "\nhipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n"
    )
    got = cli(["report", "--no-torch", "--log", str(log)])
    got.no_traceback()
    assert got.code == 0
    assert _leaks(got.out) == []
