"""The compatibility model: one plan per situation, and every value traced to a source.

The table below is the contract of issue 10: for every gfx the data knows, with
no usable torch, an old one (2.3.1+rocm6.0) and a current one (2.11.0+rocm7.2),
on Python 3.9, 3.12 and 3.14, the plan's verdict, index, torch floor, override
and whether the installed torch is kept.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from rocmfix import compat
from rocmfix.compat import Gpu, Machine, TorchBuild

# gfx -> (verdict, index, floor, override) for a fresh install on Python 3.12 / 3.14.
NEW = {
    "gfx803": ("unsupported", None, None, None),
    "gfx900": ("unsupported", "rocm6.3", "2.7", None),  # rocBLAS dropped it (ROCm#4625, #179865)
    "gfx906": ("unsupported", "rocm6.3", "2.7", None),
    "gfx908": ("native", "rocm7.2", "2.11", None),
    "gfx90a": ("native", "rocm7.2", "2.11", None),
    "gfx942": ("native", "rocm7.2", "2.11", None),
    "gfx950": ("native", "rocm7.2", "2.11", None),
    "gfx1010": ("unsupported", None, None, None),
    "gfx1030": ("native", "rocm7.2", "2.11", None),
    "gfx1031": ("override", "rocm7.2", "2.11", "10.3.0"),
    "gfx1032": ("override", "rocm7.2", "2.11", "10.3.0"),
    "gfx1034": ("override", "rocm7.2", "2.11", "10.3.0"),
    "gfx1035": ("override", "rocm7.2", "2.11", "10.3.0"),
    "gfx1036": ("unsupported", None, None, None),  # 10.3.0 segfaults (ROCm#3015)
    "gfx1100": ("native", "rocm7.2", "2.11", None),
    "gfx1101": ("native", "rocm7.2", "2.11", None),  # never 11.0.0 (pytorch#141667)
    "gfx1102": ("native", "rocm7.2", "2.11", None),  # pytorch#147761
    "gfx1103": ("unsupported", None, None, None),  # 11.0.0 hangs (pytorch#179653)
    "gfx1150": ("native", "rocm7.2", "2.11", None),  # pytorch#167299; 11.0.0 unverified
    "gfx1151": ("native", "rocm7.2", "2.11", None),
    "gfx1200": ("native", "rocm7.2", "2.11", None),  # pytorch#148562
    "gfx1201": ("native", "rocm7.2", "2.11", None),
    "gfx90c": ("unsupported", None, None, None),  # 9.0.0 unverified
}
# Python 3.9: torch 2.9+ dropped it, so the newest verified wheels are 2.7 on rocm6.3;
# targets only 2.11+ has need another Python.
PY39 = {
    **{g: (v, "rocm6.3", "2.7", o) if i else (v, i, f, o) for g, (v, i, f, o) in NEW.items()},
    "gfx950": ("native", "rocm7.2", "2.11", None),
    "gfx1150": ("native", "rocm7.2", "2.11", None),
    "gfx1151": ("native", "rocm7.2", "2.11", None),
}
NEEDS_NEWER_PYTHON_ON_39 = {"gfx950", "gfx1150", "gfx1151"}
# gfx900/906 have no wheels for 3.14 on their last working index (2.7-2.9 stop at 3.13).
NEEDS_OLDER_PYTHON_ON_314 = {"gfx900", "gfx906"}
OLD_TORCH = "2.3.1+rocm6.0"  # compiles gfx900 gfx906 gfx908 gfx90a gfx1030 gfx1100 gfx942
CURRENT_TORCH = "2.11.0+rocm7.2"
OLD_TARGETS = {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030", "gfx1100", "gfx942"}
CURRENT_TARGETS = OLD_TARGETS - {"gfx900", "gfx906"} | {
    "gfx950",
    "gfx1101",
    "gfx1102",
    "gfx1150",
    "gfx1151",
    "gfx1200",
    "gfx1201",
}

ROWS = [
    (gfx, torch, py)
    for gfx in NEW
    for torch in (None, OLD_TORCH, CURRENT_TORCH)
    for py in ("3.9", "3.12", "3.14")
]


def _plan(gpus: tuple[Gpu, ...], torch: str | None = None, py: str | None = "3.12") -> compat.Plan:
    return compat.plan(Machine(gpus=gpus, torch=TorchBuild(torch) if torch else None, python=py))


@pytest.mark.parametrize(("gfx", "torch", "py"), ROWS)
def test_plan_table(gfx: str, torch: str | None, py: str) -> None:
    verdict, index, floor, override = (PY39 if py == "3.9" else NEW)[gfx]
    plan = _plan((Gpu(gfx),), torch, py)
    assert plan.verdict == verdict
    runs_as = compat.facts.override_to_gfx(override) if override else gfx
    targets = OLD_TARGETS if torch == OLD_TORCH else CURRENT_TARGETS if torch else set()
    keep = runs_as in targets and index is not None
    assert plan.keep is keep, plan.summary
    assert plan.index == index
    assert plan.floor == floor
    assert plan.global_override == override
    if keep:
        assert plan.python_needed is None  # the installed torch already runs here
    elif py == "3.9" and gfx in NEEDS_NEWER_PYTHON_ON_39:
        assert plan.python_needed == "3.10-3.14"
    elif py == "3.14" and gfx in NEEDS_OLDER_PYTHON_ON_314:
        assert plan.python_needed and plan.python_needed.endswith("3.13")
    else:
        assert plan.python_needed is None
    if index and not keep:
        install = [c for c in plan.commands if "--index-url" in c]
        assert install == [
            f"python -m pip install 'torch>={floor}' torchvision torchaudio"
            f" --index-url https://download.pytorch.org/whl/{index}"
        ]
    if keep:
        assert not [c for c in plan.commands if "pip install" in c]
    for fact in plan.facts:
        assert fact.sources or fact.text.startswith("the installed torch"), fact
    assert not re.search(r"<[a-z_]+>|\{[a-z_]+\}", " ".join(plan.commands))


def test_the_plan_never_downgrades_a_torch_that_already_targets_the_gpu() -> None:
    # RX 9070 XT with torch 2.7.1+rocm6.2.4: 2.7 compiles gfx1201, so nothing is reinstalled
    # (the old extractor made this rocm6.2 and planned torch 2.5, which lacks gfx1201).
    plan = _plan((Gpu("gfx1201"),), "2.7.1+rocm6.2.4")
    assert plan.keep and not [c for c in plan.commands if "pip install" in c]
    assert TorchBuild("2.7.1+rocm6.2.4").index == "rocm6.2.4"


def test_an_igpu_beside_a_discrete_card_is_hidden_never_globally_overridden() -> None:
    # Ryzen 7000 iGPU (gfx1036) beside an RX 7900 XTX (gfx1100): ROCm#3015, rocm-systems#11549.
    plan = _plan((Gpu("gfx1100", node=1, index=0), Gpu("gfx1036", node=2, index=1)))
    assert plan.verdict == "native" and plan.global_override is None
    assert plan.env == {"ROCR_VISIBLE_DEVICES": "0"}
    assert [g.bare for g in plan.hide] == ["gfx1036"]


@pytest.mark.parametrize("igpu", ["gfx1035", "gfx1036"])
def test_an_override_gpu_beside_an_igpu_gets_a_per_node_value(igpu: str) -> None:
    plan = _plan((Gpu("gfx1031", node=1, index=0), Gpu(igpu, node=2, index=1)))
    assert plan.verdict == "override"
    assert plan.env == {"HSA_OVERRIDE_GFX_VERSION_1": "10.3.0", "ROCR_VISIBLE_DEVICES": "0"}


def test_different_discrete_gpus_get_per_node_overrides_not_a_global_one() -> None:
    # MI210 (gfx90a, node 2) beside an RX 6600 (gfx1032, node 1): a global 10.3.0
    # runs the MI210 as gfx1030 and it faults (ROCm#5238).
    plan = _plan((Gpu("gfx1032", node=1, index=0), Gpu("gfx90a", node=2, index=1)))
    assert plan.env == {"HSA_OVERRIDE_GFX_VERSION_1": "10.3.0"}
    assert plan.index == "rocm7.2"
    assert any("HSA_OVERRIDE_GFX_VERSION_<node>" in f.text for f in plan.facts)


def test_without_node_numbers_the_per_node_value_is_not_invented() -> None:
    plan = _plan((Gpu("gfx1031"), Gpu("gfx1036")))
    assert plan.global_override is None and plan.per_node_unknown
    assert not any(k.startswith("HSA_OVERRIDE") for k in plan.env)


def test_a_cpu_only_box_gets_no_rocm_install() -> None:
    plan = _plan((), "2.13.0+cpu")
    assert plan.verdict == "no-amd-gpu" and not plan.commands and plan.index is None
    assert "no AMD GPU on this machine" in plan.summary
    assert any("--snapshot" in n for n in plan.notes)


def test_a_cuda_box_gets_no_rocm_install() -> None:
    plan = compat.plan(
        Machine(gpus=(), torch=TorchBuild("2.11.0+cu130"), other_gpus=("NVIDIA H100",))
    )
    assert plan.verdict == "no-amd-gpu" and "NVIDIA H100" in plan.summary and not plan.commands


def test_unverified_values_never_drive_a_plan() -> None:
    # gfx-targets.yaml marks gfx1150's 11.0.0 and gfx90c's 9.0.0 unverified.
    assert compat.verified_override("gfx1150")[0] is None
    assert compat.verified_override("gfx90c")[0] is None
    rows = {r.torch: r for r in compat.facts.wheel_releases()}
    for offer in compat.offers():
        assert not rows[offer.release].unverified
    # 2.11's arch list was observed on rocm7.2 only.
    assert {o.index for o in compat.offers() if o.release == "2.11"} == {"rocm7.2"}


def test_every_rule_cites_sources_that_resolve() -> None:
    rules = compat.rules()
    known = compat._sources()  # noqa: SLF001
    groups = [
        rules["arch_verified_only_for"],
        rules["math_library_limits"],
        rules["overrides"],
        rules["refused_overrides"],
        [rules["per_node_override"], rules["igpu"]],
    ]
    for group in groups:
        for row in group:
            assert row["source"], row
            assert all(s in known for s in row["source"]), row
    for key in ("wsl", "container", "driver"):
        assert all(s in known for s in rules["platform"][f"{key}_source"])
    for url in known.values():
        assert url.startswith("https://")


def test_gpu_names_resolve_to_their_gfx() -> None:
    assert compat.gpu_from_name("RX 7600").bare == "gfx1102"  # type: ignore[union-attr]
    assert compat.gpu_from_name("Radeon RX 7900 XTX").bare == "gfx1100"  # type: ignore[union-attr]
    assert compat.gpu_from_name("rx 9070 xt").bare == "gfx1201"  # type: ignore[union-attr]
    assert compat.gpu_from_name("MI210").bare == "gfx90a"  # type: ignore[union-attr]
    assert compat.gpu_from_name("gfx1101").bare == "gfx1101"  # type: ignore[union-attr]
    assert compat.gpu_from_name("GeForce RTX 4090") is None


def test_a_logged_arch_list_is_not_taken_for_gpus() -> None:
    text = "['gfx900', 'gfx906', 'gfx908', 'gfx90a', 'gfx1030']\nfor GPU arch : gfx1036\n"
    assert [g.bare for g in compat.gpus_from_text(text)] == ["gfx1036"]


def test_judge_override_rejects_the_known_wrong_values() -> None:
    mixed = [Gpu("gfx1032", node=1), Gpu("gfx90a", node=2)]
    assert "different GPUs" in (
        compat.judge_override("HSA_OVERRIDE_GFX_VERSION", "10.3.0", mixed) or ""
    )
    assert compat.judge_override("HSA_OVERRIDE_GFX_VERSION_1", "10.3.0", mixed) is None
    assert "natively" in (
        compat.judge_override("HSA_OVERRIDE_GFX_VERSION", "11.0.0", [Gpu("gfx1101")]) or ""
    )
    assert "hangs" in (
        compat.judge_override("HSA_OVERRIDE_GFX_VERSION", "11.0.0", [Gpu("gfx1103")]) or ""
    )
    assert compat.judge_override("HSA_OVERRIDE_GFX_VERSION", "10.3.0", [Gpu("gfx1031")]) is None


# --- the CLI -------------------------------------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rocmfix", "install-plan", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_install_plan_json_for_a_named_gpu() -> None:
    proc = _cli("--gpu", "RX 7600", "--python", "3.12", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["schema"] == "rocmfix.install-plan/1"
    assert doc["verdict"] == "native" and doc["index"] == "rocm7.2"
    assert doc["torch"] == "torch>=2.11" and doc["packages"] == [
        "torch",
        "torchvision",
        "torchaudio",
    ]
    assert doc["env"] == {} and all(f["sources"] for f in doc["facts"])


def test_install_plan_human_output_says_it_never_runs_pip() -> None:
    proc = _cli("--gpu", "gfx1031", "--python", "3.9")
    assert proc.returncode == 0, proc.stderr
    assert "rocm6.3" in proc.stdout and "export HSA_OVERRIDE_GFX_VERSION=10.3.0" in proc.stdout
    assert "never runs pip" in proc.stdout


def test_install_plan_refuses_an_unknown_gpu_name_clearly() -> None:
    proc = _cli("--gpu", "RX 9999 XTXX")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "not a gfx target or GPU name" in proc.stderr
