"""Markdown rendering of a `rocmfix report` (the data comes from rocmfix.report).

Every machine-derived string passes through ``clean`` (the redactor) while it
is rendered, and log text sits in code fences longer than any backtick run
inside it, so a log can neither leak a secret nor inject Markdown.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from rocmfix.redact import Redactor
from rocmfix.report import _MARK, ReportInput, _check, fingerprint_inputs, versions
from rocmfix.termtext import plain


def _fence(lines: Iterable[str], lang: str = "text") -> str:
    body = "\n".join(lines)
    ticks = max((len(r) for r in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, ticks + 1)
    return f"{fence}{lang}\n{body}\n{fence}"


def _code(text: str) -> str:
    """Inline code that survives backticks and table pipes in the text."""
    text = " ".join(text.split()).replace("|", "\\|")
    ticks = max((len(r) for r in re.findall(r"`+", text)), default=0)
    fence = "`" * (ticks + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}" if text else ""


def _prose(text: str) -> str:
    """Plain Markdown text: tags and table pipes neutralised."""
    return " ".join(text.split()).replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


def _details(summary: str, body: str) -> list[str]:
    return ["<details>", f"<summary>{summary}</summary>", "", body, "", "</details>", ""]


Clean = Callable[[str], str]


def _header(inp: ReportInput, c: Clean) -> list[str]:
    summary = inp.doctor.get("summary") or {}
    counts = summary.get("counts") or {}
    fp = fingerprint_inputs(inp.doctor, inp.log_cause)
    made_of = "; ".join(
        [
            "causes " + (", ".join(fp["causes"]) or "none"),
            "failing " + (", ".join(fp["failing"]) or "none"),
            f"ROCm {fp['rocm']}",
            f"torch {fp['torch']}",
            "gfx " + (",".join(fp["gfx"]) or "?"),
        ]
    )
    out = [
        "## rocmfix report",
        "",
        f"**Fingerprint:** `{inp.fingerprint}` ({_code(made_of)})",
        "",
        f"**Doctor ({_prose(c(inp.source))}):** {counts.get('fail', 0)} failed, "
        f"{counts.get('warn', 0)} warnings, {counts.get('error', 0)} could not run, "
        f"{counts.get('ok', 0)} ok, {counts.get('skip', 0)} skipped.",
    ]
    causes = summary.get("root_causes") or ()
    if causes:
        ranked = ", ".join(
            f"`{rc['id']}` (from {', '.join(rc.get('checks') or ())})" for rc in causes
        )
        out.append(f"**Most likely root causes:** {ranked}.")
    if inp.log_cause:
        out.append(f"**The log points to:** `{inp.log_cause}`.")
    return [*out, ""]


def _system(inp: ReportInput, c: Clean) -> list[str]:
    v = versions(inp.doctor)
    torch = v.torch + (f" (HIP {v.hip})" if v.hip else "")
    rows = [
        ("OS", v.os),
        ("Kernel", v.kernel),
        ("amdgpu driver", v.driver),
        ("ROCm (system)", v.rocm),
        ("PyTorch", torch),
        ("Python", v.python),
        ("rocmfix", inp.version),
    ]
    out = ["### System", "", "| | |", "|---|---|"]
    out += [f"| {k} | {_code(c(val)) or 'unknown'} |" for k, val in rows]
    return [*out, ""]


def _gpus(inp: ReportInput, c: Clean) -> list[str]:
    out = ["### GPUs", ""]
    if inp.gpus:
        out += ["| KFD node | name | gfx | kind | VRAM | PCI |", "|---|---|---|---|---|---|"]
        out += [
            f"| {g.node} | {_prose(c(g.name))} | `{g.gfx}` | "
            f"{'integrated' if g.integrated else 'discrete'} | {g.vram} | {_code(c(g.pci))} |"
            for g in inp.gpus
        ]
    else:
        out.append("No AMD GPU found in the KFD topology.")
    torch_check = _check(inp.doctor, "torch-build")
    seen = [
        e["value"]
        for e in torch_check.get("evidence") or ()
        if str(e.get("source", "")).startswith("device ")
    ]
    if seen:
        out += ["", "PyTorch sees: " + ", ".join(_code(c(s)) for s in seen)]
    return [*out, ""]


def _checks(inp: ReportInput, c: Clean) -> list[str]:
    checks = [ch for ch in inp.doctor.get("checks") or () if isinstance(ch, Mapping)]
    bad = [ch for ch in checks if ch.get("status") in ("fail", "warn", "error")]
    out = ["### Failed and warned checks", ""]
    if not bad:
        out += ["None: every check passed or did not apply.", ""]
    for ch in bad:
        mark = _MARK.get(str(ch.get("status")), "?")
        out.append(
            f"- {mark} **{_prose(str(ch.get('title')))}** (`{ch.get('id')}`): {_prose(c(str(ch.get('summary', ''))))}"
        )
        if ch.get("fix"):
            out.append(f"  - fix: {_prose(c(str(ch['fix'])))}")
        for e in (ch.get("evidence") or ())[:8]:
            out.append(
                f"  - {_code(c(str(e.get('source', ''))))}: {_code(c(str(e.get('value', ''))))}"
            )
    if bad:
        out.append("")
    table = ["| | check | result |", "|---|---|---|"] + [
        f"| {_MARK.get(str(ch.get('status')), '?')} | `{ch.get('id')}` | {_prose(c(str(ch.get('summary', ''))))} |"
        for ch in checks
    ]
    return out + _details(f"All {len(checks)} checks", "\n".join(table))


def _log(inp: ReportInput, c: Clean) -> list[str]:
    log = inp.log
    if log is None:
        return []
    out = [f"### Log `{c(log.name)}` ({log.lines} lines)", ""]
    if not log.matches:
        out += ["No known cause matched this log.", ""]
    for n, m in enumerate(log.matches, 1):
        sure = "" if m.confident else ", weak"
        out += [
            f"**{n}. {_prose(m.entry.text('title'))}** (`{m.entry.id}`, confidence {m.confidence:.2f}{sure})",
            "",
            _prose(m.entry.text("summary")),
            "",
        ]
        if m.evidence:
            out += [_fence(f"{e.line:>6}: {c(e.text)}" for e in m.evidence[:6]), ""]
    if log.errors:
        out += _details(
            f"Error lines ({len(log.errors)})", _fence(f"{n:>6}: {c(t)}" for n, t in log.errors)
        )
    if log.tail:
        out += _details(
            f"Last {len(log.tail)} lines of the log", _fence(f"{n:>6}: {c(t)}" for n, t in log.tail)
        )
    return out


def _fixes(inp: ReportInput, c: Clean) -> list[str]:
    out = ["### Fixes already tried", ""]
    if inp.fixes_note:
        return [*out, _prose(inp.fixes_note), ""]
    if not inp.fixes:
        return [*out, "None applied with rocmfix on this machine.", ""]
    out += ["| when | action | values | status |", "|---|---|---|---|"]
    for r in inp.fixes[-10:]:
        params = ", ".join(f"{k}={v}" for k, v in dict(r.params).items())
        out.append(f"| {r.time} | `{r.action}` | {_code(c(params)) or '-'} | {r.status} |")
    return [*out, ""]


def render_markdown(inp: ReportInput, clean: Clean | None = None) -> str:
    """The report as GitHub Markdown; ``clean`` is applied to every machine-derived string."""
    c: Clean = clean or (lambda s: s)
    parts = [_header, _system, _gpus, _checks, _log, _fixes]
    lines = [line for part in parts for line in part(inp, c)]
    lines += [
        "---",
        f"<sub>Made with `rocmfix report` {inp.version}. Review before posting.</sub>",
    ]
    return "\n".join(lines).rstrip() + "\n"


def build(inp: ReportInput, redact: bool = True) -> str:
    """Render the report, redacted unless ``redact`` is False.

    The raw rendering is read first so that names which appear once in a
    path (``/home/NAME``) are hidden everywhere else too.
    """
    # Control characters go before the redactor reads a string: an escape sequence
    # inside a token must not split it into parts the redactor leaves alone.
    if not redact:
        return render_markdown(inp, plain)
    redactor = Redactor(inp.known_users, inp.known_hosts)
    redactor.learn(render_markdown(inp, plain))
    return render_markdown(inp, lambda s: redactor.scrub(plain(s)))
