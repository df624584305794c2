"""The learned ranker as shipped: small, prose-free, pure Python, combined so that
a decisive signature still decides, and the similar solved cases it shows."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rocmfix.cli import main
from rocmfix.kb import ranker as rk
from rocmfix.kb.kinds import text_kind
from rocmfix.kb.loader import load_kb
from rocmfix.kb.matcher import Matcher
from rocmfix.kb.split import repo_cases, thread_key

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def model() -> rk.Ranker:
    m = rk.default_ranker()
    assert m is not None, "the shipped ranker artifact is missing or unreadable"
    return m


def test_the_artifact_is_small_and_holds_no_report_prose() -> None:
    path = rk.artifact_path()
    assert path.stat().st_size <= 2 * 1024 * 1024
    blob = path.read_bytes().decode("utf-8", "replace").lower()
    # No run of eight words of any report survives into the artifact.
    leaked = []
    for case in repo_cases(DATA)[::7]:
        words = re.findall(r"[a-z]{3,}", case["text"].lower())
        for i in range(0, max(len(words) - 8, 0), 8):
            if " ".join(words[i : i + 8]) in blob:
                leaked.append(case["id"])
                break
    assert not leaked, leaked


def test_inference_imports_neither_numpy_nor_sklearn() -> None:
    code = (
        "import sys; from rocmfix.kb.ranker import default_ranker; r = default_ranker(); "
        "p = r.probabilities('hipErrorNoBinaryForGpu on my RX 6600'); "
        "assert abs(sum(p.values()) - 1) < 1e-6; "
        "assert not {'numpy', 'sklearn', 'scipy'} & set(sys.modules), sorted(sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_prose_without_any_error_line_gets_a_ranked_cause(model: rk.Ranker) -> None:
    text = (
        "Every time I start ComfyUI it says it is running on the CPU instead of my Radeon "
        "card. I installed it with the default pip command from the readme."
    )
    probs = model.probabilities(text)
    best = sorted((c for c in probs if c != "none"), key=lambda c: -probs[c])[:3]
    assert "cuda-build-on-amd" in best or "cpu-only-build" in best, best


def test_a_decisive_signature_still_decides(model: rk.Ranker) -> None:
    # Whatever the ranker thinks, an entry a signature named with confidence stays
    # the cause and the others stay "possibly related".
    final = model.combine(
        {"no-binary-for-gpu": 0.9, "gpu-out-of-memory": 0.2}, {"gpu-out-of-memory": 0.99}
    )
    assert final["no-binary-for-gpu"] >= 0.9
    assert all(v < 0.5 for k, v in final.items() if k != "no-binary-for-gpu")


def test_signature_only_matching_is_still_available() -> None:
    text = "RuntimeError: HIP error: hipErrorNoBinaryForGpu: Unable to find code object"
    result = Matcher(load_kb(), use_ranker=False).explain_text(text)
    assert result.top is not None and result.top.entry.id == "no-binary-for-gpu"
    assert all(m.via != "ranker" for m in result.matches)


def test_similar_cases_are_of_the_cause_one_per_thread_and_skip_a_given_thread(
    model: rk.Ranker,
) -> None:
    text = "hipErrorNoBinaryForGpu: Unable to find code object for all current devices on gfx1032"
    found = model.similar(text, "no-binary-for-gpu")
    assert 1 <= len(found) <= 3
    assert all(c.label == "no-binary-for-gpu" and c.url.startswith("http") for c in found)
    assert all(c.resolution for c in found)
    threads = [thread_key(c.url) for c in found]
    assert len(set(threads)) == len(threads)
    again = model.similar(text, "no-binary-for-gpu", exclude_threads=threads[:1])
    assert threads[0] not in {thread_key(c.url) for c in again}


def test_explain_json_lists_similar_solved_cases(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "explain",
            "--json",
            "RuntimeError: HIP error: hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    similar = out["matches"][0]["similar"]
    assert similar and set(similar[0]) >= {"url", "id", "resolution", "score"}
    assert "needs" not in out


def test_explain_text_shows_similar_cases(capsys: pytest.CaptureFixture[str]) -> None:
    main(["explain", "hipErrorNoBinaryForGpu: Unable to find code object for all current devices"])
    out = capsys.readouterr().out
    assert "Similar solved cases" in out and "https://" in out


def test_nothing_confident_says_what_it_would_need(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["explain", "--json", "it does not work"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1
    assert "full log" in out["needs"] and "rocmfix explain --check" in out["needs"]
    main(["explain", "it does not work"])
    text = capsys.readouterr().out
    assert "paste the full log" in text and "rocmfix explain --check" in text


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("RuntimeError: HIP error: invalid device function\n  File \"x.py\", line 3", "log"),
        ("I bought a new card and nothing I try makes torch see it, what am I missing?", "prose"),
        (
            "After the update my training crashes.\nRuntimeError: HIP error: invalid device function",
            "mixed",
        ),
        ("it just spits out hipErrorNoBinaryForGpu every time I start a model here", "mixed"),
        ("我的显卡是 RX 6600，安装完 ROCm 之后 PyTorch 还是识别不到显卡", "prose"),
    ],
)
def test_report_kinds(text: str, kind: str) -> None:
    assert text_kind(text) == kind


def test_training_chatter_does_not_dilute_a_short_report(model: rk.Ranker) -> None:
    # what a failed run prints around the report: progress bars, logged metrics,
    # NCCL INFO trace and warnings; none of it names the failure
    chatter = [
        "Epoch 3/10:  45%|####5     | 2250/5000 [03:10<03:52, 11.8it/s, loss=0.4127]",
        "{'loss': 0.4127, 'grad_norm': 1.93, 'learning_rate': 2e-05, 'epoch': 2.45}",
        "node1:4242:4242 [0] NCCL INFO Channel 07/32 :    0   1   2   3",
        "/opt/venv/lib/python3.12/site-packages/torch/utils/data/dataloader.py:617: "
        "UserWarning: This DataLoader will create 16 worker processes in total.",
        "[rank0]:[W reducer.cpp:1389] Warning: find_unused_parameters=True was specified",
        "wandb: Syncing run glorious-sun-12",
    ]
    report = "rocminfo only lists my RX 7900 XTX when I run it with sudo, as my user it fails"
    assert model.probabilities("\n".join([*chatter, report])) == model.probabilities(report)
    # a line of the same shapes that names the failure is kept
    kept = "Epoch 3/10:  45%|####5     | 2250/5000 [03:10<03:52, loss=nan] HIP error"
    assert rk.without_chatter(kept) == kept
