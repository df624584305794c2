"""`rocmfix kb train`: retrains the ranker from a data folder's tune side, deterministically
and atomically, and says clearly when the training-time tools are missing."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from rocmfix.cli import main
from rocmfix.kb import ranker as rk
from rocmfix.kb.split import TUNE, Split, repo_cases

DATA = Path(__file__).parent / "data"
LABELS = ("cuda-build-on-amd", "kfd-permission-denied", "gpu-out-of-memory", "none")


@pytest.fixture(scope="module")
def small_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Real tune-side reports of four labels (heldout rows only), with the repo's split."""
    split = Split.load(DATA / "split.json")
    root = tmp_path_factory.mktemp("data")
    (root / "heldout").mkdir()
    rows = [
        c
        for c in repo_cases(DATA)
        if c["origin"].startswith("heldout/")
        and c["label"] in LABELS
        and split.side(c.get("source", "")) == TUNE
    ]
    per_label: Counter[str] = Counter()
    kept = []
    for c in rows:  # 20 of each label keep the two trainings below quick
        per_label[c["label"]] += 1
        if per_label[c["label"]] <= 20:
            kept.append(c)
    rows = kept
    assert len({c["label"] for c in rows}) == len(LABELS)
    with (root / "heldout" / "small.jsonl").open("w", encoding="utf-8") as fh:
        for c in rows:
            fh.write(json.dumps({k: v for k, v in c.items() if k != "origin"}) + "\n")
    (root / "split.json").write_bytes((DATA / "split.json").read_bytes())
    return root


def test_train_writes_a_loadable_deterministic_artifact(
    small_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("sklearn")
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    assert main(["kb", "train", "--data", str(small_data), "--out", str(a)]) == 0
    assert main(["kb", "train", "--data", str(small_data), "--out", str(b)]) == 0
    out = capsys.readouterr().out
    assert '"grouped_by": "thread"' in out and "wrote" in out
    assert a.read_bytes() == b.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.bin", "b.bin"]  # no temp left
    model = rk.read_artifact(a)
    assert sorted(model.classes) == sorted(LABELS)
    for text, cause in (
        ("RuntimeError: Found no NVIDIA driver on your system (RX 7900)", "cuda-build-on-amd"),
        (
            "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB",
            "gpu-out-of-memory",
        ),
    ):
        probs = model.probabilities(text)
        causes = {k: v for k, v in probs.items() if k != "none"}
        assert max(causes, key=causes.__getitem__) == cause, probs
    # what the combiner learned still lets a decisive signature decide
    final = model.combine({"gpu-out-of-memory": 0.9}, probs)
    assert final["gpu-out-of-memory"] >= 0.9
    assert all(v < 0.5 for k, v in final.items() if k != "gpu-out-of-memory")


def test_a_missing_scikit_learn_is_a_clear_message(small_data: Path, tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['sklearn'] = None\n"
        "from rocmfix.cli import main\n"
        f"raise SystemExit(main(['kb', 'train', '--data', {str(small_data)!r}, "
        f"'--out', {str(tmp_path / 'x.bin')!r}]))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "scikit-learn" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "x.bin").exists()


def test_training_needs_a_data_folder_with_a_split(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("sklearn")
    assert main(["kb", "train", "--data", str(tmp_path), "--out", str(tmp_path / "x.bin")]) != 0
    assert "no heldout/ or logs/" in capsys.readouterr().err
    (tmp_path / "heldout").mkdir()
    assert main(["kb", "train", "--data", str(tmp_path), "--out", str(tmp_path / "x.bin")]) != 0
    assert "split.json" in capsys.readouterr().err


def _combiner_rows() -> tuple[list[dict], list[dict]]:
    """Cases where the ranker's probability runs *against* the answer at high values:
    a free fit learns a negative slope there; a sign-bounded one may not."""
    rows, probs = [], []
    for n in range(60):
        label = "a" if n % 3 else "b"
        # entry "a" has a decisive signature throughout; the ranker is most sure of "a"
        # exactly on the cases where "b" is the answer
        rows.append({"label": label, "sig": {"a": 0.8}})
        pa = 0.9 if label == "b" else 0.3 + (n % 5) / 20
        probs.append({"a": pa, "b": (1 - pa) / 2, "none": (1 - pa) / 2})
    return rows, probs


def test_a_sign_bounded_combiner_keeps_every_weight_on_its_side() -> None:
    pytest.importorskip("sklearn")
    from rocmfix.kb import ranker as rk
    from rocmfix.kb import train as tr

    assert len(tr.MONOTONE_SIGNS) == rk.N_COMBINE
    rows, probs = _combiner_rows()
    free, _ = tr.fit_combiner(rows, probs)
    bounded, _ = tr.fit_combiner(rows, probs, signs=tr.MONOTONE_SIGNS)
    assert free[2] < 0  # the free fit does learn "a surer ranker means less likely"
    for w, s in zip(bounded, tr.MONOTONE_SIGNS, strict=True):
        assert (s > 0 and w >= 0) or (s < 0 and w <= 0) or s == 0, (w, s)

    # and the bounded score never falls as the ranker's probability of the entry rises
    def score(w, b, p):
        f = rk.combine_features(0.8, p, (1 - p) / 2, True, True, 0.0, (1 - p) / 2)
        return b + sum(a * x for a, x in zip(w, f, strict=True))

    wb, bb = tr.fit_combiner(rows, probs, signs=tr.MONOTONE_SIGNS)
    grid = [score(wb, bb, p / 20) for p in range(1, 20)]
    assert grid == sorted(grid)


def _leaky_rounds() -> tuple[list[dict], list[Counter]]:
    """Ten collection rounds, each of one cause and with a word of its own (its source's
    jargon), beside words every report shares: a ranker that has seen a round's other
    reports recognises its word; one that has not can only guess."""
    rows, feats = [], []
    for k in range(10):
        label = "abc"[k % 3]
        for n in range(6):
            rows.append({"label": label, "thread": f"t{k}-{n}", "round": f"heldout-r{k}"})
            feats.append(Counter({f"w:source{k}": 2, "w:error": 1, "w:gpu": 1, f"w:x{n}": 1}))
    return rows, feats


def test_out_of_fold_scores_grouped_by_round_never_come_from_the_case_s_own_source() -> None:
    pytest.importorskip("sklearn")
    from rocmfix.kb import train as tr

    rows, feats = _leaky_rounds()
    by_thread, _ = tr.out_of_fold(rows, feats, False, by="thread")
    by_round, _ = tr.out_of_fold(rows, feats, False, by="round")
    right_thread = [p[r["label"]] for r, p in zip(rows, by_thread, strict=True)]
    right_round = [p[r["label"]] for r, p in zip(rows, by_round, strict=True)]
    # by thread, a case's round-mates taught the ranker its source word: over-confident
    assert min(right_thread) > 0.6
    # by round, the source word was never seen: the score is what a new source gets
    assert max(right_round) < 0.5


def test_the_artifact_records_how_its_combiner_was_stacked(
    small_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("sklearn")
    from rocmfix.kb import train as tr

    monkeypatch.setattr(tr, "STACK_BY", "round")
    one = tmp_path / "one.bin"
    assert main(["kb", "train", "--data", str(small_data), "--out", str(one)]) == 0
    # one data file is one round: fewer rounds than folds, so by thread as before
    assert rk.read_artifact(one).meta["stacked_by"] == "thread"
    # the same reports as six rounds (files): the combiner learns on out-of-round scores
    rounds = tmp_path / "rounds"
    (rounds / "heldout").mkdir(parents=True)
    lines = (small_data / "heldout" / "small.jsonl").read_text(encoding="utf-8").splitlines()
    for k in range(6):
        part = rounds / "heldout" / f"heldout-r{k}.jsonl"
        part.write_text("".join(line + "\n" for line in lines[k::6]), encoding="utf-8")
    (rounds / "split.json").write_bytes((small_data / "split.json").read_bytes())
    six = tmp_path / "six.bin"
    assert main(["kb", "train", "--data", str(rounds), "--out", str(six)]) == 0
    assert rk.read_artifact(six).meta["stacked_by"] == "round"


def test_sample_weights_make_each_thread_or_round_weigh_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("sklearn")
    from rocmfix.kb import train as tr

    rows = [{"label": "a", "thread": "t1", "round": "heldout-r1"} for _ in range(6)]
    rows += [{"label": "b", "thread": f"t{k}", "round": "heldout-r2"} for k in (2, 3)]
    assert tr.sample_weights(rows) is None  # the default: each case once
    monkeypatch.setattr(tr, "SAMPLE_WEIGHT", "thread")
    w = tr.sample_weights(rows)
    assert w.mean() == pytest.approx(1.0)
    assert w[:6].sum() == pytest.approx(w[6]) == pytest.approx(w[7])
    monkeypatch.setattr(tr, "SAMPLE_WEIGHT", "round")
    w = tr.sample_weights(rows)
    assert w[:6].sum() == pytest.approx(w[6:].sum())
    monkeypatch.setattr(tr, "SAMPLE_WEIGHT", "case")
    monkeypatch.setattr(tr, "NONE_WEIGHT", 2.0)
    w = tr.sample_weights([{"label": "none"}, {"label": "a"}])
    assert w[0] == pytest.approx(2 * w[1]) and w.mean() == pytest.approx(1.0)
    monkeypatch.setattr(tr, "SAMPLE_WEIGHT", "source")
    with pytest.raises(ValueError, match="SAMPLE_WEIGHT"):
        tr.sample_weights(rows)


def test_a_big_source_stops_outweighing_a_small_one_with_round_weights(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("sklearn")
    import numpy as np

    from rocmfix.kb import train as tr

    # twenty reports of one round say "a", two of another say "b", in the same words
    rows = [{"label": "a", "thread": f"a{k}", "round": "heldout-r1"} for k in range(20)]
    rows += [{"label": "b", "thread": f"b{k}", "round": "heldout-r2"} for k in range(2)]
    feats = [Counter({"w:error": 1, "w:gpu": 1}) for _ in rows]
    y = np.array([r["label"] for r in rows])

    def p_a() -> float:
        space = tr.Space(feats, rows)
        model = tr.fit_lr(space.matrix(feats), y, rows)
        return float(model.predict_proba(space.matrix(feats[:1]))[0][0])

    assert p_a() > 0.85
    monkeypatch.setattr(tr, "SAMPLE_WEIGHT", "round")
    assert p_a() == pytest.approx(0.5, abs=0.02)
    monkeypatch.setattr(tr, "SAMPLE_WEIGHT", "case")
    monkeypatch.setattr(tr, "CLASS_WEIGHT", "balanced")
    assert p_a() == pytest.approx(0.5, abs=0.02)


def test_features_can_be_chosen_by_how_many_threads_use_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("sklearn")
    from rocmfix.kb import train as tr

    # "w:jargon" is in five cases of one thread; "w:shared" in one case each of two threads
    rows = [{"thread": "t1", "round": "heldout-r1"} for _ in range(5)]
    rows += [{"thread": "t2", "round": "heldout-r1"}, {"thread": "t3", "round": "heldout-r2"}]
    feats = [Counter({"w:jargon": 1}) for _ in range(5)] + [Counter({"w:shared": 1})] * 2
    assert tr.Space(feats, rows).vocab == ["w:jargon", "w:shared"]  # by cases: both
    monkeypatch.setattr(tr, "DF_BY", "thread")
    assert tr.Space(feats, rows).vocab == ["w:shared"]  # one thread's word is not kept
    monkeypatch.setattr(tr, "DF_BY", "round")
    assert tr.Space(feats, rows).vocab == ["w:shared"]
    monkeypatch.setattr(tr, "MAX_FEATURES", 1)
    monkeypatch.setattr(tr, "MIN_DF", 1)
    assert tr.Space(feats, rows).vocab == ["w:shared"]  # ranked by rounds, not cases
