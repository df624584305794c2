"""`rocmfix fleet summarize`: many nodes' doctor JSON, grouped by root cause."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from rocmfix import fleet, probes
from rocmfix.cli import main
from rocmfix.snapshot import SnapshotHost

HOST = Path(__file__).parent / "data" / "host"


@pytest.fixture(scope="module")
def reports() -> dict[str, dict]:
    out = {}
    for name in ("rx7900xtx-healthy", "rx6700xt-no-override", "not-in-render-group", "wsl"):
        host = SnapshotHost(HOST / name)
        out[name] = probes.to_json(probes.run_checks(host, python=host.python))
    return out


def _write(folder: Path, name: str, doc: dict) -> Path:
    path = folder / f"doctor-{name}.json"
    path.write_text(json.dumps(doc, indent=1))
    return path


def _summary(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    code = main(["fleet", "summarize", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_nodes_are_grouped_by_their_top_root_cause(
    tmp_path: Path, reports: dict[str, dict], capsys: pytest.CaptureFixture[str]
) -> None:
    for i in range(1, 4):
        _write(tmp_path, f"gpu{i:02d}", reports["rx6700xt-no-override"])
    _write(tmp_path, "gpu04", reports["not-in-render-group"])
    _write(tmp_path, "gpu05", reports["rx7900xtx-healthy"])
    code, s = _summary(capsys, str(tmp_path))
    assert code == 1
    assert s["schema"] == "rocmfix.fleet/1" and s["nodes"] == 5
    groups = {g["root_cause"]: g for g in s["groups"]}
    assert groups["no-binary-for-gpu"]["nodes"] == ["gpu01", "gpu02", "gpu03"]
    assert groups["no-binary-for-gpu"]["failing_checks"]["gpu-arch-vs-torch"] == 3
    assert groups["kfd-permission-denied"]["nodes"] == ["gpu04"]
    assert groups["healthy"]["nodes"] == ["gpu05"]
    assert s["groups"][0]["root_cause"] == "no-binary-for-gpu"  # biggest first
    assert s["groups"][-1]["root_cause"] == "healthy"
    by_check = {c["id"]: c for c in s["checks"]}
    assert by_check["user-groups"]["fail"] == ["gpu04"]
    assert s["status"]["ok"] == 1 and s["status"]["fail"] == 4


def test_a_healthy_fleet_exits_0_and_text_output_compresses_node_lists(
    tmp_path: Path, reports: dict[str, dict], capsys: pytest.CaptureFixture[str]
) -> None:
    for i in range(1, 41):
        _write(tmp_path, f"gpu{i:03d}", reports["rx7900xtx-healthy"])
    code = main(["fleet", "summarize", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0
    assert "healthy  (40 nodes)" in out
    assert "nodes: gpu[001-040]" in out
    assert max(len(line) for line in out.splitlines()) <= 80


def test_a_host_field_in_the_json_names_the_node(
    tmp_path: Path, reports: dict[str, dict], capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path, "x", {**reports["wsl"], "host": "laptop-7"})
    _, s = _summary(capsys, str(tmp_path / "doctor-x.json"))
    assert s["groups"][0]["nodes"] == ["laptop-7"]


def test_pdsh_output_is_split_into_one_node_per_host_prefix(
    tmp_path: Path, reports: dict[str, dict], capsys: pytest.CaptureFixture[str]
) -> None:
    per_host = [
        [f"{host}: {line}" for line in json.dumps(doc, indent=1).splitlines()]
        for host, doc in (("n1", reports["wsl"]), ("n2", reports["rx6700xt-no-override"]))
    ]
    # pdsh interleaves the nodes' lines; each node keeps its own order.
    mixed = [line for pair in zip(*per_host, strict=False) for line in pair]
    longer = max(per_host, key=len)
    mixed += longer[len(min(per_host, key=len)) :]
    path = tmp_path / "fleet.txt"
    path.write_text("\n".join(mixed) + "\n")
    _, s = _summary(capsys, str(path))
    assert {g["root_cause"]: g["nodes"] for g in s["groups"]} == {
        "wsl-limitations": ["n1"],
        "no-binary-for-gpu": ["n2"],
    }


def test_objects_written_one_after_another_become_numbered_nodes(
    tmp_path: Path, reports: dict[str, dict], capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "all.json"
    path.write_text(json.dumps(reports["wsl"]) + "\n" + json.dumps(reports["wsl"]) + "\n")
    _, s = _summary(capsys, str(path))
    assert s["groups"][0]["nodes"] == ["all#1", "all#2"]


def test_snapshot_directories_are_diagnosed_as_nodes(capsys: pytest.CaptureFixture[str]) -> None:
    _, s = _summary(capsys, str(HOST / "cpu-torch-on-amd"), str(HOST / "mi300x-healthy"))
    assert {g["root_cause"]: g["nodes"] for g in s["groups"]} == {
        "cpu-only-build": ["cpu-torch-on-amd"],
        "healthy": ["mi300x-healthy"],
    }


def test_unreadable_files_are_listed_and_the_rest_still_summarized(
    tmp_path: Path, reports: dict[str, dict], capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path, "good", reports["rx7900xtx-healthy"])
    (tmp_path / "doctor-broken.json").write_text('{"schema": "rocmfix.doctor/1", "che')
    (tmp_path / "doctor-other.json").write_text('{"schema": "something/2", "checks": []}')
    code, s = _summary(capsys, str(tmp_path))
    assert code == 1
    assert s["status"]["unreadable"] == 2
    problems = {u["node"]: u["problem"] for u in s["unreadable"]}
    assert problems["broken"] == "not rocmfix doctor JSON"
    assert "expected rocmfix.doctor/1" in problems["other"]
    assert s["groups"][0]["nodes"] == ["good"]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p / "missing", "no such file or directory"),
        (lambda p: p, "no doctor results found"),
    ],
)
def test_nothing_to_read_is_a_usage_error(
    tmp_path: Path, make, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["fleet", "summarize", str(make(tmp_path))]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("file", "name"),
    [("doctor-gpu017.json", "gpu017"), ("gpu017.doctor.json", "gpu017"), ("n5.json.gz", "n5")],
)
def test_node_names_come_from_file_names_without_doctor_and_suffix(file: str, name: str) -> None:
    assert fleet.name_from_file(Path("/r") / file) == name


def test_hostlist_compression_keeps_widths_and_gaps() -> None:
    names = ["gpu001", "gpu002", "gpu003", "gpu007", "gpu10", "login", "gpu009"]
    assert fleet.compress(names) == "gpu10, gpu[001-003,007,009], login"


def test_a_thousand_generated_nodes_are_summarized_in_linear_time(
    tmp_path: Path, reports: dict[str, dict], capsys: pytest.CaptureFixture[str]
) -> None:
    names = list(reports)

    def summarize(count: int) -> float:
        folder = tmp_path / str(count)
        folder.mkdir()
        for i in range(count):
            doc = reports[names[0] if i % 5 else names[1 + (i // 5) % 3]]
            (folder / f"doctor-node{i:04d}.json").write_text(json.dumps(doc, indent=1))
        start = time.perf_counter()
        code = main(["fleet", "summarize", str(folder), "--json"])
        elapsed = time.perf_counter() - start
        s = json.loads(capsys.readouterr().out)
        assert code == 1 and s["nodes"] == count
        assert sum(g["count"] for g in s["groups"]) == count
        return elapsed

    summarize(20)  # warm: imports and the first parse are paid once
    small = summarize(100)
    large = summarize(1000)
    # Measured against 100 nodes in the same run (a loaded box slows both): ten times the
    # nodes may take ten times as long, never the hundred times of pairwise grouping.
    assert large < 25 * small + 0.5, f"1000 nodes {large:.2f} s, 100 nodes {small:.2f} s"


def test_nodes_checked_with_no_torch_are_not_called_healthy_and_stdin_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    docs = []
    for name in ("rx6700xt-no-override", "cpu-torch-on-amd"):
        assert main(["doctor", "--json", "--no-torch", "--snapshot", str(HOST / name)]) in (0, 1)
        docs.append(capsys.readouterr().out)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO("".join(docs).encode())))
    assert main(["fleet", "summarize", "-", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["nodes"] == 2 and s["status"]["torch_not_checked"] == 2
    assert [g["root_cause"] for g in s["groups"]] == ["no-problem-found-torch-not-checked"]
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO("".join(docs).encode())))
    main(["fleet", "summarize", "-"])
    out = capsys.readouterr().out
    assert " 0 healthy" in out and "torch was not checked on 2 node(s)" in out
    assert "next: rocmfix doctor --json (without --no-torch) on these nodes" in out
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    for var in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO("".join(docs).encode())))
    main(["fleet", "summarize", "-"])
    out = capsys.readouterr().out
    assert "下一步：rocmfix doctor --json（不加 --no-torch），在这些节点上运行" in out, out
    assert "without" not in out


def test_the_text_summary_speaks_chinese_under_a_chinese_locale(
    reports: dict[str, dict],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from rich.cells import cell_len

    paths = [str(_write(tmp_path, name, doc)) for name, doc in reports.items()]
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    for var in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    main(["fleet", "summarize", *paths])
    out = capsys.readouterr().out
    assert out.startswith("rocmfix fleet：共 4 个节点：")
    assert "个节点）" in out and "节点：" in out and "版本：" in out
    assert "failing" not in out and "Versions" not in out
    assert "rx6700xt-no-override" in out  # node names as they were
    assert max(cell_len(line) for line in out.splitlines()) <= 80
    monkeypatch.setenv("LANG", "C.UTF-8")
    main(["fleet", "summarize", *paths])
    assert capsys.readouterr().out.startswith("rocmfix fleet: 4 nodes: ")
