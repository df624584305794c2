"""Redaction: no planted secret or identity survives, and the diagnosis does.

The corpus in tests/data/secrets/ plants fake secrets and identities in the
shapes users paste (env dumps, shell sessions, rocm-smi, ip addr, NCCL logs,
JSON configs, a private key); planted.yaml lists every one of them and the
lines that must survive.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rocmfix.redact import MASK, Redactor, redact_env, redact_text

CORPUS = Path(__file__).parent / "data" / "secrets"
PLANTED = yaml.safe_load((CORPUS / "planted.yaml").read_text(encoding="utf-8"))
FILES = sorted(p for p in CORPUS.iterdir() if p.name != "planted.yaml")


def _survivors(text: str, needles: list[str]) -> list[str]:
    low = text.lower()
    return [n for n in needles if str(n).lower() in low]


def test_every_planted_string_is_really_in_the_corpus() -> None:
    whole = "".join(p.read_text(encoding="utf-8") for p in FILES)
    for needle in PLANTED["secrets"] + PLANTED["identities"] + PLANTED["keep"]:
        assert str(needle) in whole, needle


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_no_planted_secret_survives_in_any_corpus_file(path: Path) -> None:
    assert _survivors(redact_text(path.read_text(encoding="utf-8")), PLANTED["secrets"]) == []


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_no_identity_survives_when_the_current_user_is_known(path: Path) -> None:
    # A report always knows the current user; hostnames and addresses it must find itself.
    out = Redactor(users=["mkowalski"])(path.read_text(encoding="utf-8"))
    assert _survivors(out, PLANTED["identities"]) == []


def test_the_whole_corpus_pasted_as_one_log_leaks_nothing_without_hints() -> None:
    out = redact_text("\n".join(p.read_text(encoding="utf-8") for p in FILES))
    assert _survivors(out, PLANTED["secrets"] + PLANTED["identities"]) == []


def test_redaction_keeps_what_a_maintainer_needs() -> None:
    whole = "\n".join(p.read_text(encoding="utf-8") for p in FILES)
    out = redact_text(whole)
    assert [k for k in PLANTED["keep"] if k not in out] == []


@pytest.mark.parametrize(
    "line",
    [
        "2024-05-01 12:34:56.789 step 10",
        "terminate called after throwing an instance of 'c10::Error'",
        "torch 2.5.1+rocm6.2, HIP 6.2.41133-dd7f95766",
        "/opt/rocm/lib/rocblas/library/TensileLibrary_Type_HH_Contraction_l_Alik_Bljk_Cijk_Dijk_gfx90a.co",
        "[rank0]:[W501 12:00:00.000000000 ProcessGroupNCCL.cpp:1168] Warning",
        "pip install torch --index-url https://download.pytorch.org/whl/rocm6.2",
        "tokenizer = AutoTokenizer.from_pretrained(name)",
        "Memory access fault by GPU node-1 (Agent handle: 0x55d1c2b0) on address 0x7f3c. Reason: Page not present",
        "NCCL INFO Channel 00/32 :    0   1   2   3",
        "export HSA_OVERRIDE_GFX_VERSION=10.3.0",
    ],
)
def test_ordinary_rocm_log_lines_are_left_alone(line: str) -> None:
    assert redact_text(line) == line


@pytest.mark.parametrize(
    ("line", "gone"),
    [
        ("export HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345", "hf_AbCd"),
        ("WANDB_API_KEY: 0123456789abcdef0123456789abcdef01234567", "0123456789abcdef"),
        ("python run.py --password hunter2hunter2", "hunter2"),
        ('{"secret_key": "s3cr3t-v4lue"}', "s3cr3t"),
        ("https://bob:pa55@git.example.org/r.git", "pa55"),
        ("curl -H 'Authorization: Bearer abcdefghijk123456'", "abcdefghijk"),
        ("inet 192.168.7.21/24", "192.168.7.21"),
        ("link/ether 52:54:00:ab:cd:ef", "52:54:00"),
        ("Serial Number: 1234ABCD5678", "1234ABCD5678"),
        ("uuid 0f8fad5b-d9cb-469f-a165-70867728950e", "0f8fad5b"),
        ("ask carol.jones@uni.example.edu", "carol.jones"),
        ("File /home/carol/train.py then carol ran it", "carol"),
        ("carol@ws-42:~/proj$ python train.py; ws-42 is slow", "ws-42"),
        ("failed to connect to [trainer-7]:29500", "trainer-7"),
    ],
)
def test_each_kind_of_secret_or_identity_is_hidden(line: str, gone: str) -> None:
    out = redact_text(line)
    assert gone not in out, out


def test_known_hostname_and_its_short_form_are_hidden() -> None:
    out = Redactor(hosts=["node17.hpc.example.org"])("on node17 (node17.hpc.example.org)")
    assert "node17" not in out
    assert out.count("<host>") == 2


def test_common_words_are_never_taken_for_usernames() -> None:
    # A user called "arch" must not turn "torch arch list" into "torch <user> list".
    out = redact_text("/home/arch/x.py and the torch arch list")
    assert out == "/home/<user>/x.py and the torch arch list"


def test_redaction_is_stable_when_applied_twice() -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in FILES)
    once = redact_text(text)
    assert redact_text(once) == once


def test_redact_env_masks_secret_names_and_token_values_but_keeps_the_rest() -> None:
    env = redact_env(
        {
            "HF_TOKEN": "abc",
            "NOTE": "ghp_" + "a" * 36,
            "PIP_INDEX_URL": "https://u:p@pypi.example.org/simple",
            "HSA_OVERRIDE_GFX_VERSION": "10.3.0",
        }
    )
    assert env["HF_TOKEN"] == MASK
    assert env["NOTE"] == MASK
    assert env["PIP_INDEX_URL"] == f"https://{MASK}@pypi.example.org/simple"
    assert env["HSA_OVERRIDE_GFX_VERSION"] == "10.3.0"
