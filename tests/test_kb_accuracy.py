"""Accuracy guards on in-repo data only.

* The frozen side of the split (src/rocmfix/kb/split.py, tests/data/split.json):
  reports nothing is tuned on. Its floor is set at the measured value rounded
  down a little, and only ever moves up (edit FROZEN_FLOOR after a measured gain;
  `rocmfix kb eval --repo tests/data` prints the figures).
* The tune side keeps its own floor, so a KB edit that helps one case cannot
  quietly cost others.
* The development set (tests/data/eval/dev.jsonl, carried from the shared eval set)
  must meet the issue targets.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rocmfix.commands.kb import evaluate
from rocmfix.kb.loader import load_kb
from rocmfix.kb.split import Split, repo_cases

DATA = Path(__file__).parent / "data"
DEV = DATA / "eval" / "dev.jsonl"

# Rounds collected from heldout-aa.jsonl onwards (docs/eval-rounds.md) keep floors of
# their own: their frozen side is the never-tuned figure, much lower than that of the
# older rounds, and mixing the two populations would let a new round silently lower
# the older floors (or hide how far the new one is from the targets).
_LATE_ROUND = re.compile(r"^heldout/heldout-[a-z]{2}\.jsonl$")


def _floor_cases() -> list[dict[str, object]]:
    return [c for c in repo_cases(DATA) if not _LATE_ROUND.match(str(c["origin"]))]


# Measured with `rocmfix kb eval --repo tests/data` on rounds a-z and logs/ (452 frozen
# cases), ranker retrained with the tune sides of rounds aa-aj: top-1 0.902, top-3 0.988,
# look-alikes left alone 0.937, prose top-1 0.917, confidence >= 0.5 right 0.943; rounded
# down. The look-alike floor went from 0.94 to 0.93 on purpose (one case of 126): the
# combiner that may now name a cause no signature matched (docs/ranker.md) costs that one
# case and gains prose top-1 0.875 -> 0.917 here and never-tuned top-1 0.445 -> 0.55.
# Round 2 (w11tune: ranker bar 0.6 -> 0.5, no-signature weight 0.04 -> 0.07, two KB
# wordings, shown-percent ordering; retrained on the full tune side): top-1 0.911, top-3
# 0.991, look-alikes 0.937, prose 0.917, confidence >= 0.5 right 0.944.
FROZEN_FLOOR = {"top1": 0.91, "top3": 0.99, "unrelated_unmatched": 0.93}
TUNE_FLOOR = {"top1": 0.95, "top3": 0.99, "unrelated_unmatched": 0.92}
PROSE_FROZEN_TOP1 = 0.91
CONFIDENT_RIGHT = 0.94  # confidence >= 0.5 is right at least 9 times in 10

# The frozen side of rounds aa-aj (61 reports from sources the repo had never held,
# collected this round and placed by hash before anyone evaluated them): nothing was
# tuned on them, so this is the figure closest to a stranger's report. Measured
# 0.553 / 0.787 / 0.929 (47 labelled, 14 look-alikes), rounded down. Far below the
# issue's targets (0.85 / 0.93 / 0.90); the floor only stops it from getting worse.
# Round 2 (w11tune, see above): 0.553 / 0.809 / 0.929.
LATE_FROZEN_FLOOR = {"top1": 0.53, "top3": 0.80, "unrelated_unmatched": 0.92}
_ROUNDS_AA_AJ = re.compile(r"^heldout/heldout-a[a-j]\.jsonl$")

# Rounds ak-as (200 reports) were collected while the KB and ranker were being tuned and
# kept away from that work (never merged, never evaluated) until everything else had
# landed; then the final system was scored on them once. Whole rounds: top-1 0.521,
# top-3 0.875, look-alikes left alone 0.768, prose top-1 0.462; their frozen side (64):
# 0.604 / 0.938 / 0.875 (rounded down below). The ranker has not trained on them yet.
FRESH_FROZEN_FLOOR = {"top1": 0.58, "top3": 0.92, "unrelated_unmatched": 0.85}
_ROUNDS_AK_AS = re.compile(r"^heldout/heldout-a[k-s]\.jsonl$")

# Rounds at-bf (186 reports after one duplicate thread was dropped) sat unread in
# tests/data/unscored until they were scored once with the code at 1f46c9d
# (docs/eval-rounds.md): whole rounds top-1 0.441, top-3 0.739, look-alikes left alone
# 0.842; their frozen side (56): 0.484 / 0.806 / 0.880 (rounded down below).
UNSCORED_FROZEN_FLOOR = {"top1": 0.46, "top3": 0.78, "unrelated_unmatched": 0.86}
_ROUNDS_AT_BF = re.compile(r"^heldout/heldout-(?:a[t-z]|b[a-f])\.jsonl$")

# Rounds bg-bv (118 reports, c1-c4 of session 5) were collected while the KB was being
# tuned, kept off main until all tuning had landed, then scored once with the final
# code a9fbb6b (docs/eval-rounds.md): whole rounds top-1 0.512, top-3 0.817, look-alikes
# left alone 0.778; their frozen side (38): 0.393 / 0.893 / 0.900 (rounded down below).
LATEST_FROZEN_FLOOR = {"top1": 0.37, "top3": 0.87, "unrelated_unmatched": 0.88}
_ROUNDS_BG_BV = re.compile(r"^heldout/heldout-b[g-v]\.jsonl$")

# Rounds bw-ce (79 reports, c1-c3 of session 6) were collected on branches of their own
# while the KB, the combiner and the scan were being changed, kept off main until all
# of that had landed, then scored once (docs/eval-rounds.md). The code at the start of
# session 6 (a6723b1) and at its end (e17a7e7) give the same figures: whole rounds top-1
# 0.491, top-3 0.811, look-alikes left alone 0.923; their frozen side (25 cases, 19
# labelled, 6 look-alikes): 0.474 / 0.737 / 1.000 (rounded down below; with 6
# look-alikes one case is 17 points, so that floor is set at 5 of 6).
NEWEST_FROZEN_FLOOR = {"top1": 0.47, "top3": 0.73, "unrelated_unmatched": 0.83}
_ROUNDS_BW_CE = re.compile(r"^heldout/heldout-(?:b[w-z]|c[a-e])\.jsonl$")

# Rounds cf-cl (61 reports: 41 labelled, 20 look-alikes; collectors c4-c6 of session 7,
# on branches of their own, merged after the session's code had landed) scored once with
# the code at 610cf29, whose KB and ranker are those of the session's start: whole rounds
# top-1 0.488, top-3 0.805, look-alikes left alone 0.900; their frozen side (14 cases, 7
# labelled, 7 look-alikes): 0.143 / 1.000 / 0.857. With 7 of each, one case is 14 points:
# the top-3 floor is set at 6 of 7, the others at what was measured.
NEWER_FROZEN_FLOOR = {"top1": 0.14, "top3": 0.85, "unrelated_unmatched": 0.85}
_ROUNDS_CF_CL = re.compile(r"^heldout/heldout-c[f-l]\.jsonl$")

# Rounds cm-cw (122 reports: 86 labelled, 36 look-alikes; collectors c7-c10 of session 8,
# on branches of their own, merged after the session's code had landed) scored once with
# the code at c68d390 (the session's end; the code at its start, f2f994a, gives the same
# top-1 / top-3 / look-alikes): whole rounds top-1 0.453, top-3 0.698, look-alikes left
# alone 0.806, confidence >= 0.5 right 0.726; their frozen side (44 cases, 31 labelled,
# 13 look-alikes): 0.387 / 0.742 / 0.769, rounded down.
NEWEST_CM_FROZEN_FLOOR = {"top1": 0.38, "top3": 0.74, "unrelated_unmatched": 0.76}
_ROUNDS_CM_CW = re.compile(r"^heldout/heldout-c[m-w]\.jsonl$")

# Rounds cx-df (94 reports: 67 labelled, 27 look-alikes; collectors c11-c13 of session 9,
# merged after the session's code had landed) scored once with the code at 4dd3253:
# whole rounds top-1 0.493, top-3 0.731, look-alikes left alone 0.741, confidence >= 0.5
# right 0.898; their frozen side (27 cases, 18 labelled, 9 look-alikes): 0.333 / 0.722 /
# 1.000. With 18 and 9 cases one case is 6 and 11 points; each floor is set one case
# below what was measured, so that a retrained ranker is judged on the frozen totals
# rather than on a single report of a small group.
NEWEST_CX_FROZEN_FLOOR = {"top1": 0.27, "top3": 0.66, "unrelated_unmatched": 0.88}
_ROUNDS_CX_DF = re.compile(r"^heldout/heldout-(?:c[x-z]|d[a-f])\.jsonl$")

# Rounds dg-do (86 reports: 56 labelled, 30 look-alikes; collectors c14-c16 of session 10)
# scored once at 1b501c6: top-1 0.464, top-3 0.768, look-alikes left alone 0.833. Session 11
# placed them by the hash rule (68 tune, 18 frozen); their frozen side (10 labelled, 8
# look-alikes), code at 4a21e56: 0.500 / 0.600 / 0.875, confidence >= 0.5 right 0.857.
# One case is 10 and 12.5 points here; floors one case below.
NEWEST_DG_FROZEN_FLOOR = {"top1": 0.39, "top3": 0.49, "unrelated_unmatched": 0.74}
_ROUNDS_DG_DO = re.compile(r"^heldout/heldout-d[g-o]\.jsonl$")

# Rounds dp-ea (106 reports: 68 labelled, 38 look-alikes; collectors c17-c19 of session 11:
# distro/kernel packaging, HPC and torch domain libraries, Rust/Julia ML, voice apps, HF
# libraries, video/3D/desktop-LLM/training-UI apps, little-used ROCm repos) scored once at
# f4b938f: top-1 0.382, top-3 0.676, look-alikes left alone 0.974, confidence >= 0.5 right
# 0.909 (the session's starting code, 4a21e56: 0.368 / 0.662 / 0.974). Placed by the hash
# rule in the same session (76 tune, 30 frozen); their frozen side (21 labelled, 9
# look-alikes): 0.476 / 0.667 / 1.000. Floors one case below.
NEWEST_DP_FROZEN_FLOOR = {"top1": 0.42, "top3": 0.61, "unrelated_unmatched": 0.88}
_ROUNDS_DP_EA = re.compile(r"^heldout/heldout-(?:d[p-z]|ea)\.jsonl$")

# Rounds eb-ej (65 reports: 41 labelled, 24 look-alikes; collectors c20-c22 of session 12:
# forum/blog pages, Chinese reports, inference-library, container/HPC, science-code,
# desktop-AI, driver-level, app and distro-packaging trackers) scored once at 8e77c4d:
# top-1 0.463, top-3 0.829, look-alikes left alone 0.833, confidence >= 0.5 right 0.781
# (the session's starting code, 3af3860: the same, case for case). Placed by the hash rule
# in the same session (48 tune, 17 frozen); their frozen side (12 labelled, 5 look-alikes):
# 0.417 / 0.750 / 0.600. Floors one case below.
NEWEST_EB_FROZEN_FLOOR = {"top1": 0.33, "top3": 0.66, "unrelated_unmatched": 0.40}
_ROUNDS_EB_EJ = re.compile(r"^heldout/heldout-e[b-j]\.jsonl$")

# Rounds ek-et (127 reports: 84 labelled, 43 look-alikes; collectors c23-c26 of session 13:
# forum pages, Chinese reports, LLM/diffusion app trackers, containers and clusters, ROCm
# library trackers, science/HPC frameworks, Chinese-led projects and DCU, Windows AMD apps,
# distro packaging, beginners' environments) scored once with the session's starting code
# (e2affce): top-1 0.405, top-3 0.726, look-alikes left alone 0.837, confidence >= 0.5 right
# 0.750; with the session's merged KB work (wprose2, wkb12): 0.405 / 0.726 / 0.860 / 0.766,
# the same answer on every labelled case. Placed by the hash rule (84 tune, 43 frozen); their
# frozen side (31 labelled, 12 look-alikes): 0.516 / 0.774 / 0.833. Floors one case below.
NEWEST_EK_FROZEN_FLOOR = {"top1": 0.48, "top3": 0.74, "unrelated_unmatched": 0.74}
_ROUNDS_EK_ET = re.compile(r"^heldout/heldout-e[k-t]\.jsonl$")


@pytest.fixture(scope="module")
def report() -> dict[str, object]:
    cases = _floor_cases()
    assert len(cases) >= 1300
    return evaluate(cases, load_kb(), split=Split.load(DATA / "split.json"))


def test_the_frozen_split_meets_its_floor(report) -> None:  # type: ignore[no-untyped-def]
    frozen = report["sides"]["frozen"]
    assert frozen["cases"] >= 400
    for key, floor in FROZEN_FLOOR.items():
        assert frozen[key] >= floor, (key, frozen[key], frozen["miss_counts"])
    assert frozen["by_kind"]["prose"]["top1"] >= PROSE_FROZEN_TOP1
    assert frozen["confident_right"] >= CONFIDENT_RIGHT
    # Frozen misses are reported as counts only, never as texts or case ids.
    assert "misses" not in frozen and set(frozen["miss_counts"]) == {"by_id", "by_kind"}


@pytest.mark.parametrize(
    ("rounds", "floors"),
    [
        (_ROUNDS_AA_AJ, LATE_FROZEN_FLOOR),
        (_ROUNDS_AK_AS, FRESH_FROZEN_FLOOR),
        (_ROUNDS_AT_BF, UNSCORED_FROZEN_FLOOR),
        (_ROUNDS_BG_BV, LATEST_FROZEN_FLOOR),
        (_ROUNDS_BW_CE, NEWEST_FROZEN_FLOOR),
        (_ROUNDS_CF_CL, NEWER_FROZEN_FLOOR),
        (_ROUNDS_CM_CW, NEWEST_CM_FROZEN_FLOOR),
        (_ROUNDS_CX_DF, NEWEST_CX_FROZEN_FLOOR),
        (_ROUNDS_DG_DO, NEWEST_DG_FROZEN_FLOOR),
        (_ROUNDS_DP_EA, NEWEST_DP_FROZEN_FLOOR),
        (_ROUNDS_EB_EJ, NEWEST_EB_FROZEN_FLOOR),
        (_ROUNDS_EK_ET, NEWEST_EK_FROZEN_FLOOR),
    ],
    ids=["aa-aj", "ak-as", "at-bf", "bg-bv", "bw-ce", "cf-cl", "cm-cw", "cx-df", "dg-do", "dp-ea", "eb-ej", "ek-et"],
)
def test_the_frozen_side_of_the_late_rounds_meets_its_floor(rounds, floors) -> None:  # type: ignore[no-untyped-def]
    late = [c for c in repo_cases(DATA) if rounds.match(str(c["origin"]))]
    report = evaluate(late, load_kb(), split=Split.load(DATA / "split.json"))
    frozen = report["sides"]["frozen"]
    assert frozen["cases"] >= 14
    for key, floor in floors.items():
        assert frozen[key] >= floor, (key, frozen[key], frozen["miss_counts"])
    assert "misses" not in frozen


def test_the_tune_side_meets_its_floor(report) -> None:  # type: ignore[no-untyped-def]
    tune = report["sides"]["tune"]
    for key, floor in TUNE_FLOOR.items():
        assert tune[key] >= floor, (key, tune[key], tune["misses"])


def _cases(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_the_development_set_meets_the_issue_targets() -> None:
    report = evaluate(_cases(DEV), load_kb())
    assert report["top1"] >= 0.95 and report["top3"] == 1.0, report["misses"]
    assert report["unrelated_unmatched"] >= 0.90, report["misses"]


def test_burying_a_report_in_training_noise_does_not_change_the_answer() -> None:
    split = Split.load(DATA / "split.json")
    cases = [c for c in _floor_cases() if split.side(str(c.get("source", ""))) == "frozen"][::12]
    kb = load_kb()
    plain, buried = evaluate(cases, kb), evaluate(cases, kb, bury=20000)
    assert buried["top1"] >= plain["top1"] - 0.03
    assert buried["unrelated_unmatched"] >= plain["unrelated_unmatched"] - 0.03
