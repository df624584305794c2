"""A paste-ready Markdown bug report, and the fingerprint that finds duplicates.

``gather`` collects what a maintainer asks for first: the doctor's verdict,
the GPUs, the versions that matter, the log's most likely causes with their
evidence lines, the log's last lines and the fixes rocmfix already applied.
``rocmfix.report_markdown`` turns that into GitHub Markdown with long parts
folded into ``<details>``; redaction happens piece by piece while rendering, so
placeholders like ``<user>`` land inside code and survive GitHub's HTML sanitiser.

The fingerprint hashes only what two machines with the same problem share:
root-cause ids, failing check ids and major versions. Never names, paths or
times. ``versions`` and ``fingerprint`` read the ``rocmfix.doctor/1`` JSON, so
``rocmfix fleet`` computes the same print for each node.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

TAIL_LINES = 40
"""Lines of the log's end shown in the report."""
_TOP_MATCHES = 3
_MARK = {"fail": "✗", "warn": "!", "error": "?", "ok": "✓", "skip": "-"}
_GFX = re.compile(r"\bgfx[0-9]{3,4}[0-9a-f]?\b")


@dataclass(frozen=True)
class Versions:
    """The versions a ROCm bug report needs, read from doctor JSON ('' = unknown)."""

    os: str = ""
    kernel: str = ""
    driver: str = ""
    rocm: str = ""
    """System ROCm version, or 'none' when no system ROCm is installed."""
    torch: str = ""
    hip: str = ""
    python: str = ""
    gfx: tuple[str, ...] = ()


def _check(doctor: Mapping[str, Any], check_id: str) -> Mapping[str, Any]:
    for c in doctor.get("checks") or ():
        if isinstance(c, Mapping) and c.get("id") == check_id:
            return c
    return {}


def _evidence(check: Mapping[str, Any], source: str) -> str:
    for e in check.get("evidence") or ():
        if isinstance(e, Mapping) and e.get("source") == source:
            return str(e.get("value", ""))
    return ""


def _first(pattern: str, text: str) -> str:
    m = re.search(pattern, text)
    return m.group(1) if m else ""


def versions(doctor: Mapping[str, Any]) -> Versions:
    """Versions found in a ``rocmfix.doctor/1`` object (missing checks give '')."""
    os_info, driver = _check(doctor, "os-info"), _check(doctor, "amdgpu-module")
    rocm_check, torch_check = _check(doctor, "rocm-install"), _check(doctor, "torch-build")
    rocm_summary = str(rocm_check.get("summary", ""))
    rocm = _first(r"ROCm (\d+\.\d+(?:\.\d+)?)", rocm_summary)
    if not rocm and "no system ROCm" in rocm_summary:
        rocm = "none"
    module_version = _evidence(driver, "/sys/module/amdgpu/version")
    driver_text = str(driver.get("summary", ""))
    if module_version and not module_version.startswith("absent"):
        driver_text = f"{driver_text}, module version {module_version}"
    gpu_list = _check(doctor, "gpu-list")
    gfx_text = " ".join(str(e.get("value", "")) for e in gpu_list.get("evidence") or ())
    gfx = _GFX.findall(gfx_text) or _GFX.findall(str(gpu_list.get("summary", "")))
    hip = _evidence(torch_check, "torch.version.hip")
    return Versions(
        os=_evidence(os_info, "/etc/os-release PRETTY_NAME"),
        kernel=_evidence(os_info, "kernel release"),
        driver=driver_text,
        rocm=rocm,
        torch=_evidence(torch_check, "torch.__version__"),
        hip="" if hip == "None" else hip,
        python=_first(
            r"Python (\d+\.\d+(?:\.\d+)?)", str(_check(doctor, "python-version").get("summary", ""))
        ),
        gfx=tuple(sorted(set(gfx))),
    )


def _major_minor(version: str) -> str:
    m = re.match(r"(\d+)\.(\d+)", version)
    return f"{m.group(1)}.{m.group(2)}" if m else (version or "?")


def _torch_key(version: str) -> str:
    """'2.5.1+rocm6.2.4' -> '2.5+rocm6.2'; '2.5.1+cpu' -> '2.5+cpu'."""
    if not version:
        return "?"
    base, _, tag = version.partition("+")
    tag_m = re.match(r"([a-z]+)(\d+(?:\.\d+)?)?", tag)
    flavour = ""
    if tag_m:
        flavour = (
            "+"
            + tag_m.group(1)
            + (
                _major_minor(tag_m.group(2))
                if tag_m.group(2) and "." in tag_m.group(2)
                else tag_m.group(2) or ""
            )
        )
    return _major_minor(base) + flavour


def fingerprint_inputs(doctor: Mapping[str, Any], log_cause: str | None = None) -> dict[str, Any]:
    """What the fingerprint hashes, shown beside it so people can read it."""
    summary = doctor.get("summary") or {}
    causes = [str(rc.get("id")) for rc in (summary.get("root_causes") or ())[:2]]
    if log_cause:
        causes.append(log_cause)
    failing = [str(c.get("id")) for c in doctor.get("checks") or () if c.get("status") == "fail"]
    v = versions(doctor)
    return {
        "causes": sorted(set(causes)),
        "failing": sorted(set(failing)),
        "rocm": _major_minor(v.rocm) if v.rocm not in ("", "none") else (v.rocm or "?"),
        "torch": _torch_key(v.torch),
        "gfx": list(v.gfx),
    }


def fingerprint(doctor: Mapping[str, Any], log_cause: str | None = None) -> str:
    """``rfx-`` and 10 hex digits: equal for machines with the same problem and versions."""
    i = fingerprint_inputs(doctor, log_cause)
    key = "|".join(
        [",".join(i["causes"]), ",".join(i["failing"]), i["rocm"], i["torch"], ",".join(i["gfx"])]
    )
    return "rfx-" + hashlib.sha256(key.encode()).hexdigest()[:10]


# ----------------------------------------------------------------- gathering


@dataclass(frozen=True)
class GpuRow:
    """One GPU of the report's table."""

    node: int
    name: str
    gfx: str
    integrated: bool
    vram: str
    pci: str


@dataclass(frozen=True)
class LogSummary:
    """What the report shows of a log."""

    name: str
    lines: int
    matches: tuple[Any, ...]
    """rocmfix.kb.matcher.Match, best first (confident or not)."""
    errors: tuple[tuple[int, str], ...]
    """Lines the extractor marked fatal: (line number, text)."""
    tail: tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class ReportInput:
    """Everything ``render_markdown`` needs; gathered once, rendered twice."""

    doctor: Mapping[str, Any]
    source: str
    """'this machine' or 'snapshot NAME'."""
    gpus: tuple[GpuRow, ...] = ()
    log: LogSummary | None = None
    fixes: tuple[Any, ...] = ()
    """rocmfix.actions.JournalRecord of this machine, oldest first."""
    fixes_note: str = ""
    """Why fixes are not listed (snapshot, unreadable journal); '' when they are."""
    known_users: tuple[str, ...] = ()
    known_hosts: tuple[str, ...] = ()
    version: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def log_cause(self) -> str | None:
        if self.log and self.log.matches and self.log.matches[0].confident:
            return str(self.log.matches[0].entry.id)
        return None

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.doctor, self.log_cause)


def gpu_rows(host: Any) -> tuple[GpuRow, ...]:
    """The GPU table of a host (live or snapshot), from KFD topology and PCI."""
    from rocmfix.probes.base import human_bytes
    from rocmfix.probes.gpus import read_gpus

    return tuple(
        GpuRow(
            g.node,
            g.name or "?",
            g.gfx,
            g.integrated,
            human_bytes(g.vram_bytes) if g.vram_bytes else "?",
            g.pci_slot or "?",
        )
        for g in read_gpus(host)
    )


def summarize_log(name: str, explanation: Any) -> LogSummary:
    """The parts of a ``rocmfix.kb.matcher.Explanation`` the report shows."""
    ex = explanation.excerpt
    errors = tuple((f.last_line, f.text) for f in ex.findings if f.fatal)
    return LogSummary(
        name=name,
        lines=ex.lines,
        matches=tuple(explanation.matches[:_TOP_MATCHES]),
        errors=errors[-15:],
        tail=tuple(ex.tail[-TAIL_LINES:]),
    )


def known_identity(host: Any, live: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Usernames and hostnames a host reveals (the current ones when ``live``)."""
    users: list[str] = [str(getattr(host, "user", "") or "")]
    env: Mapping[str, str] = getattr(host, "env", {}) or {}
    users += [env.get("USER", ""), env.get("LOGNAME", "")]
    # A home outside /home (/srv/alice, /data/users/bob) is not learnt from the
    # text by its shape, so its last component is named here: it is the user's
    # name as often as not, and the redactor errs on the side of hiding.
    homes = [env.get("HOME", "")]
    if live:
        import os

        try:
            import pwd

            entry = pwd.getpwuid(os.getuid())
            users.append(entry.pw_name)
            homes.append(entry.pw_dir)
        except (ImportError, KeyError, OSError):
            pass
    users += [h.rstrip("/").rsplit("/", 1)[-1] for h in homes if h and h.strip("/")]
    hosts: list[str] = [env.get("HOSTNAME", "")]
    hostname_file = host.read_text("/etc/hostname")
    if hostname_file:
        hosts.append(hostname_file.strip())
    if live:
        import socket

        hosts.append(socket.gethostname())
    return _names(users), _names(hosts)


def _names(items: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i for i in items if i))


def gather(
    host: Any,
    *,
    source: str,
    python: str,
    live: bool,
    want_torch: bool = True,
    log_path: str | None = None,
    kb_paths: Sequence[str] = (),
    timeout: float = 10.0,
    torch_timeout: float = 60.0,
) -> ReportInput:
    """Run the doctor, explain the log and read the journal for one report.

    Raises:
        InputError: the log cannot be read or is binary.
    """
    from rocmfix import __version__, probes

    log = _read_log(log_path, kb_paths) if log_path else None
    results = probes.run_checks(
        host, python=python, timeout=timeout, want_torch=want_torch, torch_timeout=torch_timeout
    )
    fixes, note = _journal() if live else ((), "Not recorded in snapshots.")
    users, hosts = known_identity(host, live)
    return ReportInput(
        doctor=probes.to_json(results),
        source=source,
        gpus=gpu_rows(host),
        log=log,
        fixes=fixes,
        fixes_note=note,
        known_users=users,
        known_hosts=hosts,
        version=__version__,
    )


def _read_log(path: str, kb_paths: Sequence[str]) -> LogSummary:
    from pathlib import Path

    from rocmfix import safeio
    from rocmfix.errors import InputError
    from rocmfix.kb.loader import load_kb
    from rocmfix.kb.matcher import matcher_for

    matcher = matcher_for(load_kb(kb_paths))
    try:
        # Regular files only (a FIFO or /dev/zero would never end), gzip output capped.
        with safeio.open_log(path) as stream:
            explanation = matcher.explain_stream(stream)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as err:  # a truncated gzip, a file that vanished mid-read
        raise InputError(f"{path}: cannot read ({safeio.describe(err)})") from None
    if explanation.excerpt.binary and not explanation.matches:
        raise InputError(f"{path}: looks like binary data, not a text log")
    return summarize_log(Path(path).name, explanation)


def _journal() -> tuple[tuple[Any, ...], str]:
    from rocmfix.actions import history
    from rocmfix.errors import RocmfixError

    try:
        return history(), ""
    except (RocmfixError, OSError, ValueError) as err:
        return (), f"The rocmfix journal could not be read: {err}"
