"""Packaged facts: gfx decoding, override values and their safety, wheel
indexes, and per-device peak throughput."""

from __future__ import annotations

import pytest

from rocmfix import facts


@pytest.mark.parametrize(
    ("value", "gfx"),
    [(100301, "gfx1031"), (90010, "gfx90a"), (90012, "gfx90c"), (110001, "gfx1101"), (0, None)],
)
def test_kfd_target_versions_decode_to_gfx_names(value: int, gfx: str | None) -> None:
    assert facts.gfx_from_target_version(value) == gfx


@pytest.mark.parametrize(
    ("value", "gfx"),
    [
        ("10.3.0", "gfx1030"),
        ("9.0.10", "gfx90a"),
        ("9.0.a", None),
        ("11.0", None),
        ("64.0.0", None),
    ],
)
def test_override_values_follow_libhsakmt_rules(value: str, gfx: str | None) -> None:
    assert facts.override_to_gfx(value) == gfx


def test_known_overrides_come_from_the_gfx_table() -> None:
    assert facts.override_for_gfx("gfx1031") == "10.3.0"
    assert facts.override_for_gfx("gfx1032:xnack-") == "10.3.0"
    assert facts.override_for_gfx("gfx1100") is None  # native: no override


@pytest.mark.parametrize("gfx", ["gfx1103", "gfx1033"])
def test_overrides_documented_to_cause_faults_or_wrong_results_are_never_offered(gfx: str) -> None:
    assert facts.gfx_info(gfx) is not None
    assert facts.override_for_gfx(gfx) is None


@pytest.mark.parametrize(
    ("rocm", "index"),
    [
        ("6.2.1", "rocm6.2"),
        ("6.2.4", "rocm6.2.4"),
        ("7.2.0", "rocm7.2"),
        ("5.7.1", "rocm5.7"),
        ("4.0", None),
        ("garbage", None),
    ],
)
def test_the_wheel_index_for_a_system_rocm(rocm: str, index: str | None) -> None:
    assert facts.rocm_index_for(rocm) == index


def test_an_mi250x_die_gets_half_the_board_peak() -> None:
    peak = facts.peak_for_device("AMD Instinct MI250X")
    assert peak is not None and peak.fp16 == pytest.approx(191.5)


def test_an_xtx_is_not_taken_for_an_xt() -> None:
    assert facts.peak_for_device("AMD Radeon RX 7900 XTX").name.endswith("XTX")
    assert facts.peak_for_device("AMD Radeon RX 7900 XT").name.endswith("7900 XT")


def test_a_pcie_h100_does_not_take_the_sxm_figures() -> None:
    assert facts.peak_for_device("NVIDIA H100 PCIe") is None
    assert facts.peak_for_device("NVIDIA H200").bf16 == pytest.approx(989.4)


def test_an_unknown_device_has_no_peak() -> None:
    assert facts.peak_for_device("AMD Radeon Graphics") is None


def test_pci_ids_name_the_chip_and_gfx_of_cards_without_a_kfd_node() -> None:
    from rocmfix import facts

    # amdgpu_drv.c pciidlist: 0x6811 Pitcairn, 0x7340 Navi 14, 0x6fdf Polaris 10, 0x67b1 Hawaii
    assert (facts.chip_for_pci_id(0x6811).chip, facts.chip_for_pci_id(0x6811).gfx) == (
        "pitcairn",
        "gfx601",
    )
    assert facts.chip_for_pci_id(0x7340).gfx == "gfx1012"
    assert facts.chip_for_pci_id(0x6FDF).gfx == "gfx803"
    assert facts.chip_for_pci_id(0x67B1).chip == "hawaii"
    assert facts.chip_for_pci_id(0x744C) is None  # Navi 31 is probed by IP discovery: no row
    assert facts.chip_by_name("TAHITI").gfx == "gfx600"


def test_a_gfx_missing_from_the_table_is_too_new_only_when_newer_than_all_of_it() -> None:
    from rocmfix import facts

    assert facts.gfx_outside_table("gfx701") == "older" and facts.gfx_unsupported("gfx701")
    assert facts.gfx_outside_table("gfx1300") == "newer" and not facts.gfx_unsupported("gfx1300")
    assert facts.gfx_outside_table("gfx810") == "between"
    assert facts.gfx_outside_table("gfx1100") is None and not facts.gfx_unsupported("gfx1100")
    assert facts.gfx_unsupported("gfx803")
