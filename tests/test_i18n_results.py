"""The core's results read Chinese in a Chinese session, and English output is untouched.

Check titles, verify stages, risk levels and statuses are enumerated from the
registries the core keeps, so a new check or stage without Chinese fails here;
summaries and plan lines are driven through the real commands (the demo
machine's doctor, a set-env plan, the recorded verify results).
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console

import rocmfix
from rocmfix.cli import main
from rocmfix.i18n_results import (
    FAILURE_KIND_ZH,
    RISK_ZH,
    STAGES_ZH,
    STATUS_ZH,
    TITLES_ZH,
    plan_line,
    summary,
)

HAN = re.compile(r"[\u4e00-\u9fff]")
DEMO = Path(rocmfix.__file__).parent / "demo" / "snapshot"


def _words_left(text: str) -> list[str]:
    """Runs of three or more English words outside `code`, quotes and values."""
    text = re.sub(r"`[^`]*`|'[^']*'|\"[^\"]*\"|\([^)]*\)", " ", text)
    words = [w if re.fullmatch(r"[a-z]+", w) else "|" for w in text.split()]
    return [r.strip() for r in " ".join(words).split("|") if len(r.split()) >= 3]


def _zh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, lang: str = "zh_CN.UTF-8") -> None:
    monkeypatch.setenv("LANG", lang)
    for var in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("SHELL", "/bin/bash")
    monkeypatch.setenv("COLUMNS", "100")


def test_every_registered_id_has_chinese() -> None:
    from rocmfix.kb.model import RISKS
    from rocmfix.probes import CHECKS
    from rocmfix.probes.base import Status
    from rocmfix.verify import STAGES
    from rocmfix.verify.model import FailureKind

    assert set(CHECKS) <= set(TITLES_ZH), set(CHECKS) - set(TITLES_ZH)
    assert set(STAGES) <= set(STAGES_ZH), set(STAGES) - set(STAGES_ZH)
    assert set(RISKS) <= set(RISK_ZH)
    assert {s.value for s in Status} <= set(STATUS_ZH)
    assert {k.value for k in FailureKind} <= set(FAILURE_KIND_ZH)
    for text in (*TITLES_ZH.values(), *STAGES_ZH.values(), *RISK_ZH.values()):
        assert HAN.search(text) or text in ("HSA_OVERRIDE_GFX_VERSION", "rocminfo"), text


def test_doctor_on_the_demo_machine_reads_chinese(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _zh(monkeypatch, tmp_path)
    main(["doctor", "--snapshot", str(DEMO)])
    out = capsys.readouterr().out
    checks: list[str] = []  # each check's line, with its wrapped continuation
    for line in out.splitlines():
        if line[:1] in "✓✗!-?" and "：" in line:
            checks.append(line)
        elif checks and line.startswith("    ") and not line.lstrip().startswith("修复"):
            checks[-1] += line.strip()
    assert len(checks) >= 30, out
    for line in checks:
        head, _, result = line.partition("：")
        assert HAN.search(head) or "HSA_OVERRIDE" in head or "rocminfo" in head, line
        assert HAN.search(result), line
    for frame in ("快照", "探测 torch 的解释器", "项失败", "最可能的根本原因：", "下一步："):
        assert frame in out, frame
    prose = [line for line in out.splitlines() if not line.startswith("    修复")]
    assert not [r for line in prose for r in _words_left(line)], out
    assert "/home/alex/venv/lib/python3.11/site-packages/torch/lib/rocblas/library" in out


def test_doctor_in_english_names_the_same_results(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _zh(monkeypatch, tmp_path, "C.UTF-8")
    main(["doctor", "--snapshot", str(DEMO)])
    out = capsys.readouterr().out
    assert not HAN.search(out)
    assert "✗ GPU gfx vs torch, runtime and math libraries: torch has no kernels for" in out
    assert "Most likely root causes:" in out and "Next: rocmfix fix no-binary-for-gpu" in out
    # a path is never cut at a hyphen (it is copied): site-packages stays whole
    assert "site-\n" not in out and "/site-packages/torch/lib/rocblas/library" in out


def test_a_fix_plan_reads_chinese_and_its_diff_is_unchanged(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["fix", "set-env", "HSA_OVERRIDE_GFX_VERSION=10.3.0"]
    _zh(monkeypatch, tmp_path, "C.UTF-8")
    assert main(argv) == 0
    english = capsys.readouterr()
    _zh(monkeypatch, tmp_path)
    assert main(argv) == 0
    chinese = capsys.readouterr()
    diff = [line for line in english.out.splitlines() if line.startswith("  ")]
    assert diff and diff == [line for line in chinese.out.splitlines() if line.startswith("  ")]
    assert "plan " in english.out and "step 1:" in english.out
    assert "计划 " in chinese.out and "第 1 步：" in chinese.out and "注意：" in chinese.out
    assert "dry run" in english.err and chinese.err.startswith("预演："), chinese.err


def test_manual_fixes_and_refusals_of_a_kb_entry_read_chinese(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _zh(monkeypatch, tmp_path)
    assert main(["fix", "no-binary-for-gpu"]) == 0
    out = capsys.readouterr().out
    heads = [line for line in out.splitlines() if not line.startswith(" ")]
    assert heads and all(line.startswith("修复 ") for line in heads), out
    assert "未提供：需要" in out and "需手动完成" in out
    assert HAN.search(out.split("需手动完成：", 1)[1].splitlines()[1])  # the entry's own zh text


@pytest.mark.parametrize("fixed", [False, True])
def test_verify_results_read_chinese(fixed: bool) -> None:
    from rocmfix.demo import recorded_verify
    from rocmfix.screens.verify import outcome_text, stages_text
    from rocmfix.verify.render import render

    result = recorded_verify(fixed)

    def shown(lang: str) -> str:
        buf = io.StringIO()
        Console(file=buf, width=100, color_system=None).print(render(result, lang))
        return buf.getvalue()

    english, chinese = shown("en"), shown("zh")
    assert not HAN.search(english)
    for st in result.stages:
        assert st.label in english
        assert STAGES_ZH[st.stage] in chinese
    assert ("验证失败" in chinese) != fixed and ("GPU 已通过" in chinese) == fixed
    tui = stages_text(list(result.stages), running=False, lang="zh").plain
    assert all(STAGES_ZH[st.stage] in tui for st in result.stages)
    assert HAN.search(outcome_text(result, "zh"))


def test_unknown_text_stays_as_it_is() -> None:
    assert summary("a summary no table knows", "zh") == "a summary no table knows"
    assert plan_line("  +export A=1", "zh") == "  +export A=1"  # a diff line is never touched
    assert summary("torch has no kernels for gfx1031", "en") == "torch has no kernels for gfx1031"


def test_most_check_lines_of_the_recorded_machines_read_chinese(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # every recorded machine of tests/data/host; a summary no table knows stays English (true,
    # only untranslated): this floor keeps the catalogue from falling behind the probes
    _zh(monkeypatch, tmp_path)
    monkeypatch.setenv("COLUMNS", "400")
    hosts = Path(__file__).parent / "data" / "host"
    total = chinese = 0
    for machine in sorted(p for p in hosts.iterdir() if (p / "snapshot.json").is_file()):
        main(["doctor", "--snapshot", str(machine)])
        for line in capsys.readouterr().out.splitlines():
            if line[:1] in "✓✗!-?" and "：" in line:
                total += 1
                chinese += bool(HAN.search(line.partition("：")[2]))
    assert total > 1000
    assert chinese / total >= 0.99, (chinese, total)


def test_doctor_v_fix_lines_and_details_of_the_recorded_machines_read_chinese(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `doctor -v` adds each check's fix line and its details; the commands they carry stay as
    # typed, the words around them are Chinese (evidence lines are raw values and stay as read)
    import json

    from rocmfix.i18n_results import summary as zh_summary

    _zh(monkeypatch, tmp_path)
    hosts = Path(__file__).parent / "data" / "host"
    fixes = fixes_zh = prose = prose_zh = 0
    for machine in sorted(p for p in hosts.iterdir() if (p / "snapshot.json").is_file()):
        main(["doctor", "--json", "--snapshot", str(machine)])
        for check in json.loads(capsys.readouterr().out)["checks"]:
            if check["fix"]:
                fixes += 1
                fixes_zh += bool(HAN.search(zh_summary(check["fix"], "zh")))
            for line in check["details"].splitlines():
                sentence = line[:1].isupper() and line.rstrip().endswith(".")  # not a table row
                if sentence:
                    prose += 1
                    prose_zh += bool(HAN.search(zh_summary(line, "zh")))
    assert fixes > 80 and prose > 20
    assert fixes_zh / fixes >= 0.95, (fixes_zh, fixes)
    assert prose_zh / prose >= 0.95, (prose_zh, prose)
    main(["doctor", "-v", "--snapshot", str(hosts / "podman-rootless-nogroup")])
    out = capsys.readouterr().out
    assert "设备已经传入，但进程不在宿主机的设备用户组中" in out  # a detail line, worded
    assert "podman run" in out and "--group-add keep-groups" in out  # its command, as typed


def test_verify_stage_details_and_failure_messages_read_chinese() -> None:
    # what each stage measured and why one failed, worded; values (sizes, rates, errors) kept
    from rocmfix.demo import recorded_verify
    from rocmfix.i18n_results import verify_detail
    from rocmfix.screens.verify import stages_text
    from rocmfix.verify.render import render

    result = recorded_verify(True)
    buf = io.StringIO()
    Console(file=buf, width=120, color_system=None).print(render(result, "zh"))
    shown = buf.getvalue()
    assert "写入并读回 256 MiB" in shown and "主机到设备 11.8 GB/s，逐位一致" in shown
    assert "最大相对误差 3.1e-08" in shown and "written and read back" not in shown
    tui = stages_text(list(result.stages), running=False, lang="zh").plain
    assert "写入并读回 256 MiB" in tui
    cpu = "this torch is a CPU-only build: torch.version.hip and torch.version.cuda are both None"
    assert verify_detail(cpu, "zh") == (
        "这个 torch 是只支持 CPU 的构建：torch.version.hip 和 torch.version.cuda 都是 None"
    )
    assert verify_detail("fp32 matmul returned NaN", "zh") == "fp32 矩阵乘法返回了 NaN"
    assert verify_detail(cpu, "en") == cpu
    english = io.StringIO()
    Console(file=english, width=120, color_system=None).print(render(result, "en"))
    assert "256 MiB written and read back" in english.getvalue()


def test_history_shows_each_fix_status_in_chinese_and_json_keeps_the_ids(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from rocmfix.i18n_results import JOURNAL_STATUS_ZH

    _zh(monkeypatch, tmp_path)
    (tmp_path / ".bashrc").write_text("# mine\n")
    assert main(["fix", "set-env", "MIOPEN_FIND_MODE=FAST", "--apply", "--yes"]) == 0
    assert main(["fix", "set-env", "HSA_ENABLE_SDMA=0", "--apply", "--yes"]) == 0
    assert main(["undo", "--last", "--yes"]) == 0
    capsys.readouterr()
    assert main(["history"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any("已应用" in x and "MIOPEN_FIND_MODE=FAST" in x for x in lines), lines
    assert any("已撤销" in x and "HSA_ENABLE_SDMA=0" in x for x in lines), lines
    # the action column starts at the same terminal cell on every line
    from rich.cells import cell_len

    starts = {cell_len(x[: x.index("set-env")]) for x in lines}
    assert len(starts) == 1, lines
    main(["history", "--json"])
    statuses = [r["status"] for r in json.loads(capsys.readouterr().out)["records"]]
    assert sorted(statuses) == ["applied", "undone"]
    from rocmfix.actions.journal import _EVENTS

    assert {"applied", "undone", "rolled-back"} <= set(JOURNAL_STATUS_ZH) and "begin" in _EVENTS


def test_doctor_verbose_names_its_evidence_in_chinese_and_keeps_the_readings(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["doctor", "-v", "--snapshot", str(DEMO)])
    english = capsys.readouterr().out
    assert "kernel release: " in english
    _zh(monkeypatch, tmp_path)
    main(["doctor", "-v", "--snapshot", str(DEMO)])
    out = capsys.readouterr().out
    assert "内核版本：" in out and "kernel release" not in out
    assert "process groups" not in out and "进程所属用户组：" in out
    # the value read stays as read, and a path-named source stays a path
    release = english.split("kernel release: ", 1)[1].split()[0]
    assert f"内核版本：{release}" in out
    assert "/proc/cmdline：" in out


@pytest.mark.parametrize(
    "gpus", ["gfx1031", "gfx1100", "gfx1031,gfx1036", "gfx906", "gfx803", "gfx1030,gfx1100"]
)
def test_install_plan_reads_chinese_and_its_facts_stay_as_sourced(
    gpus: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["install-plan", "--gpu", gpus])
    english = capsys.readouterr().out
    _zh(monkeypatch, tmp_path)
    main(["install-plan", "--gpu", gpus])
    out = capsys.readouterr().out
    head, _, facts = out.partition("依据的事实")
    assert "Inputs" not in out and "Notes" not in out and "Commands (" not in out
    assert HAN.search(head.splitlines()[1]), head  # the summary line
    for line in head.splitlines():
        text = line.split(" — ")[0]  # a GPU's note quotes its source
        if text.lstrip().startswith("$"):
            continue  # commands are copied as they are
        assert not _words_left(text), line
    # the facts are the same sentences, with the same sources, as in English
    assert facts and out.count("https://") == english.count("https://")
    for url in re.findall(r"https://\S+", english):
        assert url in out
