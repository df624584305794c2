"""What a report is made of: a pasted log, prose, or both (for per-kind figures).

The rule is deterministic and deliberately simple, so anyone can recount a
figure by hand:

* A non-empty line is **prose** when it has at least five tokens and at
  least 60 % of them are plain words (letters, with an apostrophe or a
  trailing ``.,;:!?)``), or when it holds six or more CJK characters and no
  log marker. Lines of one or two tokens (greetings, headings) count as neither.
* Every other line of three or more tokens, and any line with a log marker
  (a traceback frame, ``Error:``/``error:``, a shell prompt, a ``[timestamp]``,
  a path, a hex address, ``key=value``, ``module.Name: ``), is **log**.
* A prose line that quotes an error token (``hipErrorNoBinaryForGpu``,
  ``RuntimeError``, ``libamdhip64.so``, ``HIP error``, ``0x…``) also counts as a log line.

``log``: no prose lines; ``prose``: no log lines; ``mixed``: both.
"""

from __future__ import annotations

import re

KINDS = ("log", "mixed", "prose")

_WORDISH = re.compile(r"^[(\"'“]?[A-Za-z][A-Za-z'’-]*[.,;:!?)\"'”]*$")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LOG_MARKER = re.compile(
    r"^\s*(?:Traceback \(most recent call last\)|File \"|at |#\d+ |\$ |>>> |\[\s*[\d.:T-]+\s*\]|"
    r"(?:ERROR|WARNING|INFO|DEBUG|FATAL)\b|[EWIF]\d{4} )|"
    r"\b\w*(?:Error|Exception|error|ERROR)(?:\[\w+\])?: |"
    r"(?:^|\s)(?:/[\w.+-]+){2,}|[A-Za-z]:\\\\?\w|0x[0-9a-fA-F]{4,}|\b[A-Z_]{3,}=\S|"
    r"\b\w+(?:\.\w+)+: |\b[a-z]+[A-Z]\w*: "
)
_ERROR_TOKEN = re.compile(
    r"\b(?:hip|hsa|cuda|miopen|rocblas|hipblas)\w*(?:Error|ERROR|_STATUS)\w*|"
    r"\b[A-Z]\w+(?:Error|Exception)\b|\blib[\w+-]+\.so\b|\bHIP error\b|\b0x[0-9a-fA-F]{4,}\b"
)


def line_kind(line: str) -> str | None:
    """``log``, ``prose`` or None (a blank or very short line)."""
    text = line.strip()
    if not text:
        return None
    marker = bool(_LOG_MARKER.search(text))
    cjk = len(_CJK.findall(text))
    if cjk >= 6 and not marker:
        return "prose"
    tokens = text.split()
    if len(tokens) < 3 and not marker:
        return None
    if not marker and len(tokens) >= 5:
        words = sum(1 for t in tokens if _WORDISH.match(t))
        if words >= 0.6 * len(tokens):
            return "prose"
    return "log"


def text_kind(text: str) -> str:
    """``log``, ``mixed`` or ``prose`` for a whole report (see the module docstring)."""
    has_log = has_prose = False
    for line in text.splitlines():
        kind = line_kind(line)
        if kind == "prose":
            has_prose = True
            if _ERROR_TOKEN.search(line):
                has_log = True
        elif kind == "log":
            has_log = True
        if has_log and has_prose:
            return "mixed"
    if has_prose:
        return "prose"
    return "log"
