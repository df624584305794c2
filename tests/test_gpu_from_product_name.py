"""A report that names its card ("RX 6600", "7900 XTX") instead of a gfx target gets the
fixes filled for that card, by the sourced product table, and never an override for a card
that has a native build; a text naming no GPU says which fixes wait for the GPUs."""

from __future__ import annotations

import json

import pytest

from rocmfix import facts
from rocmfix.cli import main
from rocmfix.kb.family import named_gpus

INVALID = "RuntimeError: HIP error: invalid device function"
NO_BINARY = "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"


def explain_json(text: str, capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["explain", "--json", text]) == 0
    return json.loads(capsys.readouterr().out)


def top(out: dict, entry_id: str) -> dict:
    m = out["matches"][0]
    assert m["id"] == entry_id, [x["id"] for x in out["matches"]]
    return m


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("I have an RX 6600 and it fails", [("RX 6600", "gfx1032")]),
        ("AMD Radeon RX 6700 XT, Ubuntu 22.04", [("RX 6700 XT", "gfx1031")]),
        ("Instinct MI300X node", [("MI300X", "gfx942")]),
        ("a Navi 22 card", [("Navi 22", "gfx1031")]),
        ("7900 XTX and the 780M iGPU", [("7900 XTX", "gfx1100"), ("780M", "gfx1103")]),
        # A card the tables do not resolve: the GPUs are not known, none is guessed.
        ("Radeon 780M laptop with an RX 7600S", []),
        # ... also when the unresolved card is on another line than the known one (the
        # text is read line by line, and a line naming only "RX 7600S" still counts)
        ("Radeon 780M laptop\nand an RX 7600S dGPU", []),
        ("my RX 7600S\nRadeon 780M", []),
        # names on several lines, in order of first mention, one per gfx
        ("Navi 22 here\nRX 6600 there\nand another RX 6600", [("Navi 22", "gfx1031"), ("RX 6600", "gfx1032")]),
        ("Radeon Pro W7600", []),
        # the workstation and AI PRO cards of the table's rows, as users shorten them
        ("Radeon Pro W7900", [("W7900", "gfx1100")]),
        ("Radeon AI PRO R9700", [("R9700", "gfx1201")]),
        ("gfx1030 only", []),  # a written-out target is read by compat.gpus_from_text
        ("HIP error at step 6600, 580 MB free", []),
    ],
)
def test_named_gpus_reads_product_and_chip_names(text: str, want: list) -> None:
    assert named_gpus(text) == want
    assert named_gpus(text) == want  # the second reading comes from the per-line memo


def test_a_card_without_an_official_build_gets_its_override_filled(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = explain_json(f"{INVALID}. I have an RX 6600 on ROCm 6.2, torch 2.5.1+rocm6.2", capsys)
    m = top(out, "no-binary-for-gpu")
    assert m["params"]["gfx"] == "gfx1032" and m["params"]["gfx_from"] == "RX 6600"
    info = facts.gfx_info("gfx1032")
    assert info is not None and info.hsa_override == "10.3.0"
    actions = {f["action"]: f for f in m["fixes"] if f["action"]}
    assert actions["set-env"]["params"] == {"HSA_OVERRIDE_GFX_VERSION": info.hsa_override}
    assert all("{" not in f["text"] for f in m["fixes"])  # every placeholder filled
    assert any("gfx1032" in f["text"] for f in m["fixes"])


def test_a_card_with_a_native_build_never_gets_an_override(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = explain_json(f"{INVALID} on my 7900 XTX, torch 2.4.0+rocm6.1", capsys)
    for m in out["matches"]:
        assert "hsa_override" not in m["params"], m["id"]
        assert not any("HSA_OVERRIDE_GFX_VERSION" in json.dumps(f) for f in m["fixes"]), m["id"]


def test_two_different_cards_get_no_global_override(capsys: pytest.CaptureFixture[str]) -> None:
    out = explain_json(f"{NO_BINARY} RX 6600 in slot 1 and RX 7900 XTX in slot 2", capsys)
    for m in out["matches"]:
        assert "hsa_override" not in m["params"], m["id"]
        assert "gfx_from" not in m["params"]  # two cards: no single gfx to fill in


def test_a_written_out_target_wins_over_a_product_name(capsys: pytest.CaptureFixture[str]) -> None:
    out = explain_json(f"{NO_BINARY} RX 6600, rocminfo says gfx1031", capsys)
    m = out["matches"][0]
    assert m["params"].get("gfx") == "gfx1031" and "gfx_from" not in m["params"]


def test_gfx1100_on_rocm_5_7_is_not_called_too_old() -> None:
    # The Linux support list names gfx1100 from ROCm 6.0, but PyTorch 2.1's ROCm 5.5 wheels
    # were built for it (first_built, sourced): 5.5 and later do not predate the card.
    assert facts.rocm_predates("5.7", "gfx1100") is False
    assert facts.rocm_predates("5.5", "gfx1100") is False
    assert facts.rocm_predates("5.4.2", "gfx1100") is True
    assert facts.rocm_predates("6.3", "gfx1201") is True  # RDNA4: listed from 6.4.1


def test_held_back_fixes_are_listed_with_what_they_wait_for(
    capsys: pytest.CaptureFixture[str],
) -> None:
    m = top(explain_json(NO_BINARY, capsys), "no-binary-for-gpu")
    held = {h["number"]: h["needs"] for h in m["held_back"]}
    shown = {f["number"] for f in m["fixes"]}
    assert held and not (set(held) & shown)
    assert sorted(set(held) | shown) == list(range(1, len(held) + len(shown) + 1))
    assert all(needs for needs in held.values())


def test_the_text_says_which_fixes_wait_for_the_gpus(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", NO_BINARY]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "depend on this machine's GPUs" in out and "rocmfix explain --check" in out
    # With the GPU named, the override is decided (here: offered) and nothing waits.
    assert main(["explain", NO_BINARY + " on an RX 6600"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "depend on this machine's GPUs" not in out
    assert "gfx=gfx1032 (RX 6600)" in out
