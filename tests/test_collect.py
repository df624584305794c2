"""`rocmfix collect` records what the checks read, masks secrets, and replays identically."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rocmfix.cli import main
from rocmfix.snapshot import MASK, redact_env


@pytest.mark.parametrize(
    "name",
    [
        "HF_TOKEN",
        "GITHUB_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "OPENAI_API_KEY",
        "DB_PASSWORD",
        "WANDB_API_KEY",
        "MY_PAT",
    ],
)
def test_secret_looking_variables_are_masked(name: str) -> None:
    assert redact_env({name: "abc123"})[name] == MASK


def test_token_values_and_url_credentials_are_masked_whatever_the_name() -> None:
    env = redact_env(
        {
            "SOMETHING": "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "PIP_INDEX_URL": "https://user:s3cret@pypi.example.com/simple",
            "HSA_OVERRIDE_GFX_VERSION": "10.3.0",
        }
    )
    assert env["SOMETHING"] == MASK
    assert "s3cret" not in env["PIP_INDEX_URL"] and "pypi.example.com" in env["PIP_INDEX_URL"]
    assert env["HSA_OVERRIDE_GFX_VERSION"] == "10.3.0"


def test_collect_never_writes_a_secret_and_the_snapshot_replays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HF_TOKEN", "hf_verysecretvalue0123456789abcdef")
    monkeypatch.setenv("PIP_EXTRA_INDEX_URL", "https://bob:hunter2@example.com/simple")
    out = tmp_path / "snap"
    assert main(["collect", "--out", str(out), "--no-torch"]) == 0
    blob = "".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file())
    assert "hf_verysecretvalue" not in blob and "hunter2" not in blob
    meta = json.loads((out / "snapshot.json").read_text())
    # Only the variables the checks read are kept: a token is dropped, not just masked.
    assert meta["schema"] == "rocmfix.snapshot/1" and "HF_TOKEN" not in meta["env"]
    capsys.readouterr()
    main(["doctor", "--snapshot", str(out), "--json", "--no-torch"])
    replay = json.loads(capsys.readouterr().out)
    live = json.loads((out / "doctor.json").read_text())
    stable = {"memory", "kernel-log"}  # live values that move between two reads
    pairs = zip(live["checks"], replay["checks"], strict=True)
    assert [(a["id"], a["status"]) for a, b in pairs if a["id"] not in stable] == [
        (b["id"], b["status"]) for b in replay["checks"] if b["id"] not in stable
    ]


def test_collect_refuses_a_non_empty_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "x").write_text("keep me")
    assert main(["collect", "--out", str(tmp_path)]) == 2
    assert "not an empty directory" in capsys.readouterr().err
    assert (tmp_path / "x").read_text() == "keep me"


def test_a_home_outside_slash_home_does_not_leave_the_machine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # /home/NAME is learnt from its shape; /srv/NAME, /data/users/NAME are not, and the
    # snapshot used to carry the name in HOME, VIRTUAL_ENV, PATH and MIOpen's cache paths.
    home = "/srv/zorblattquux"
    monkeypatch.setenv("HOME", home)
    monkeypatch.setenv("VIRTUAL_ENV", f"{home}/venvs/sd")
    monkeypatch.setenv("PATH", f"{home}/bin:" + os.environ["PATH"])
    monkeypatch.delenv("USER", raising=False)
    monkeypatch.delenv("LOGNAME", raising=False)
    out = tmp_path / "snap"
    assert main(["collect", "--out", str(out), "--no-torch"]) == 0
    capsys.readouterr()
    files = [p for p in out.rglob("*") if p.is_file()]
    leaked = [
        str(p.relative_to(out)) for p in files if "zorblattquux" in p.read_text(errors="replace")
    ]
    assert leaked == []
    meta = json.loads((out / "snapshot.json").read_text())
    assert meta["env"]["VIRTUAL_ENV"] == "/srv/<user>/venvs/sd"


def test_known_identity_names_the_home_s_last_component_but_not_root() -> None:
    from rocmfix.report import known_identity

    class Host:
        user = ""
        env = {"HOME": "/data/users/qwertyna/", "USER": ""}

        def read_text(self, path: str) -> str:
            return ""

    users, _ = known_identity(Host(), live=False)
    assert "qwertyna" in users
    Host.env = {"HOME": "/root"}
    from rocmfix.redact import Redactor

    assert Redactor(*known_identity(Host(), live=False)).scrub("cd /root/x") == "cd /root/x"
