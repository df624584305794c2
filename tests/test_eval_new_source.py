"""scripts/eval_new_source.py: which rounds are the "new source" and which it trains on."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("sklearn")

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "eval_new_source.py"
_spec = importlib.util.spec_from_file_location("eval_new_source", SCRIPT)
assert _spec is not None and _spec.loader is not None
ens = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ens)


def test_rounds_are_ordered_as_they_were_collected() -> None:
    names = [
        "heldout-aa",
        "logs",
        "heldout-z",
        "heldout-b",
        "heldout-bf",
        "heldout-ak",
        "neg-nvidia",
    ]
    ordered = sorted(names, key=ens.round_key)
    assert ordered[-5:] == ["heldout-b", "heldout-z", "heldout-aa", "heldout-ak", "heldout-bf"]
    assert set(ordered[:2]) == {"logs", "neg-nvidia"}


@pytest.mark.parametrize(
    ("name", "inside", "before", "after"),
    [
        (
            "ak-bf",
            ["heldout-ak", "heldout-as", "heldout-az", "heldout-bf"],
            ["heldout-aj", "heldout-z", "logs"],
            ["heldout-bg", "heldout-ca"],
        ),
        (
            "aa-aj",
            ["heldout-aa", "heldout-aj"],
            ["heldout-z", "heldout-a", "neg-generic"],
            ["heldout-ak", "heldout-bf"],
        ),
        ("at-bf", ["heldout-at", "heldout-ba"], ["heldout-as", "heldout-ak"], ["heldout-bg"]),
        (
            "bg-bv",
            ["heldout-bg", "heldout-bp", "heldout-bv"],
            ["heldout-bf", "heldout-at", "heldout-z", "logs"],
            ["heldout-bw", "heldout-ca"],
        ),
        (
            "bw-ce",
            ["heldout-bw", "heldout-bz", "heldout-ca", "heldout-ce"],
            ["heldout-bv", "heldout-bg", "heldout-z", "logs"],
            ["heldout-cf", "heldout-da"],
        ),
    ],
)
def test_a_held_out_set_trains_only_on_older_rounds(name, inside, before, after) -> None:  # type: ignore[no-untyped-def]
    first, last = ens.SETS[name]
    for r in inside:
        assert ens.held(r, first, last) and not ens.older(r, first), r
    for r in before:
        assert ens.older(r, first) and not ens.held(r, first, last), r
    for r in after:  # newer rounds are neither trained on nor scored
        assert not ens.older(r, first) and not ens.held(r, first, last), r


def test_an_unknown_set_is_a_clear_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        ens.main(["--new", "zz-zz"])
    assert exc.value.code == 2
    assert "unknown held-out set zz-zz" in capsys.readouterr().err
