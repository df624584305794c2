"""Validation of one knowledge-base file's text (format: docs/kb-schema.md).

Every error names the file, the line, the entry id and the field, so that a
user editing kb.d or a contributor editing kb/errors.yaml finds the problem at
once. Line numbers are looked up only on the error path (composing the YAML
node tree is slower than parsing it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import yaml

from rocmfix.errors import KbError
from rocmfix.kb.model import RISKS, SEVERITIES, Entry, Extractor, Fix, Signature
from rocmfix.termtext import plain

SCHEMA = "rocmfix.kb/1"
_ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_LANGS = ("en", "zh")


class _Invalid(Exception):
    """Raised inside validation; carries the entry index, id and field path."""

    def __init__(
        self, message: str, index: int | None, entry_id: str | None, path: tuple[Any, ...]
    ):
        super().__init__(message)
        self.message, self.index, self.entry_id, self.path = message, index, entry_id, path


def _locate(text: str, index: int | None, path: tuple[Any, ...]) -> int | None:
    """1-based line of ``entries[index].<path>`` in ``text`` (only used on errors)."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    steps: list[Any] = ["entries"] + ([index] if index is not None else []) + list(path)
    line = node.start_mark.line + 1 if node else None
    for step in steps:
        child = None
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.value == step:
                    child = value
                    break
        elif (
            isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value)
        ):
            child = node.value[step]
        if child is None:
            break
        node, line = child, child.start_mark.line + 1
    return line


def _loc_text(
    raw: Any, field: str, ctx: tuple[int, str | None], required: bool = True
) -> dict[str, str]:
    index, eid = ctx
    if raw is None and not required:
        return {}
    if isinstance(raw, str):
        raw = {"en": raw}
    if not isinstance(raw, Mapping) or not isinstance(raw.get("en"), str) or not raw["en"].strip():
        raise _Invalid(f"'{field}' needs English text ({{en: ...}})", index, eid, (field,))
    out = {}
    for lang, value in raw.items():
        if lang not in _LANGS or not isinstance(value, str):
            raise _Invalid(
                f"'{field}.{lang}' must be a string in one of {_LANGS}", index, eid, (field, lang)
            )
        out[lang] = plain(value).strip()  # a shared kb.d file must not drive the terminal
    return out


def _signature(raw: Any, field: str, pos: int, ctx: tuple[int, str | None]) -> Signature:
    index, eid = ctx
    where = (field, pos)
    if not isinstance(raw, Mapping):
        raise _Invalid(
            f"'{field}[{pos}]' must be a mapping with regex or literal", index, eid, where
        )
    regex, literal = raw.get("regex"), raw.get("literal")
    if (regex is None) == (literal is None):
        raise _Invalid(f"'{field}[{pos}]' needs exactly one of regex or literal", index, eid, where)
    pattern = regex if regex is not None else literal
    if not isinstance(pattern, str) or not pattern:
        raise _Invalid(f"'{field}[{pos}]' pattern must be a non-empty string", index, eid, where)
    ignore_case = bool(raw.get("ignore_case", False))
    if regex is not None:
        try:
            re.compile(pattern, re.IGNORECASE if ignore_case else 0)
        except re.error as err:
            raise _Invalid(
                f"'{field}[{pos}].regex' does not compile: {err}", index, eid, where
            ) from None
        _check_backtracking(pattern, ignore_case, f"{field}[{pos}].regex", ctx, where)
    weight = raw.get("weight", 1.0 if field == "excludes" else None)
    if not isinstance(weight, (int, float)) or isinstance(weight, bool) or not 0 < weight <= 1:
        raise _Invalid(
            f"'{field}[{pos}].weight' must be a number in (0, 1]", index, eid, (*where, "weight")
        )
    amd_weight = raw.get("amd_weight")
    if amd_weight is not None and (
        not isinstance(amd_weight, (int, float))
        or isinstance(amd_weight, bool)
        or not 0 < amd_weight <= 1
    ):
        raise _Invalid(
            f"'{field}[{pos}].amd_weight' must be a number in (0, 1]",
            index,
            eid,
            (*where, "amd_weight"),
        )
    return Signature(
        pattern=pattern,
        weight=float(weight),
        literal=literal is not None,
        ignore_case=ignore_case,
        amd_weight=float(amd_weight) if amd_weight is not None else None,
    )


def _check_backtracking(
    pattern: str, ignore_case: bool, name: str, ctx: tuple[int, str | None], where: tuple[Any, ...]
) -> None:
    """Refuse a regex that can take exponential or polynomial time on a long line."""
    from rocmfix.kb.redos import redos_problem  # noqa: PLC0415 - only on a parse, not a cache hit

    problem = redos_problem(pattern, ignore_case)
    if problem:
        raise _Invalid(
            f"'{name}' can backtrack catastrophically on a long line: {problem}",
            ctx[0],
            ctx[1],
            where,
        )


def _fix(raw: Any, pos: int, ctx: tuple[int, str | None]) -> Fix:
    index, eid = ctx
    where = ("fixes", pos)
    if not isinstance(raw, Mapping):
        raise _Invalid(f"'fixes[{pos}]' must be a mapping", index, eid, where)
    text = _loc_text(raw.get("text"), f"fixes[{pos}].text", ctx)
    action = raw.get("action")
    if action is not None and (not isinstance(action, str) or not _ID_RE.match(action)):
        raise _Invalid(f"'fixes[{pos}].action' must be a kebab-case action id", index, eid, where)
    params = raw.get("params") or {}
    if not isinstance(params, Mapping) or not all(isinstance(k, str) for k in params):
        raise _Invalid(f"'fixes[{pos}].params' must be a mapping of names", index, eid, where)
    if params and action is None:
        raise _Invalid(f"'fixes[{pos}].params' given without an action", index, eid, where)
    if action is not None and ({"python", "venv"} & set(params)):
        # Planning a fix runs the target interpreter (`pip list`): a KB file must
        # never pick the program that runs, only the user (--python, --venv) may.
        raise _Invalid(
            f"'fixes[{pos}].params' may not name an interpreter or venv (python, venv)",
            index,
            eid,
            where,
        )
    commands = raw.get("commands") or []
    if not isinstance(commands, list) or not all(isinstance(c, str) for c in commands):
        raise _Invalid(f"'fixes[{pos}].commands' must be a list of strings", index, eid, where)
    risk = raw.get("risk", "low")
    if risk not in RISKS:
        raise _Invalid(f"'fixes[{pos}].risk' must be one of {RISKS}", index, eid, where)
    root = raw.get("root", False)
    if not isinstance(root, bool):
        raise _Invalid(f"'fixes[{pos}].root' must be true or false", index, eid, where)
    when = raw.get("when") or []
    if not isinstance(when, list) or not all(isinstance(w, str) for w in when):
        raise _Invalid(f"'fixes[{pos}].when' must be a list of parameter names", index, eid, where)
    return Fix(
        text=text,
        action=action,
        params=dict(params),
        commands=tuple(plain(c) for c in commands),  # what is shown is what gets copied
        risk=risk,
        root=root,
        when=tuple(when),
    )


def _str_list(raw: Any, field: str, ctx: tuple[int, str | None]) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(x, str) and x.strip() for x in raw):
        raise _Invalid(f"'{field}' must be a list of non-empty strings", ctx[0], ctx[1], (field,))
    return tuple(plain(x).strip() for x in raw)


def _entry(raw: Any, index: int, origin: str) -> Entry:
    if not isinstance(raw, Mapping):
        raise _Invalid("each entry must be a mapping", index, None, ())
    eid = raw.get("id")
    if not isinstance(eid, str) or not _ID_RE.match(eid):
        raise _Invalid("'id' must be a kebab-case string", index, None, ("id",))
    ctx = (index, eid)
    severity = raw.get("severity", "error")
    if severity not in SEVERITIES:
        raise _Invalid(f"'severity' must be one of {SEVERITIES}", index, eid, ("severity",))
    priority = raw.get("priority", 50)
    if not isinstance(priority, int) or isinstance(priority, bool) or not 0 <= priority <= 100:
        raise _Invalid("'priority' must be an integer 0..100", index, eid, ("priority",))
    sigs = raw.get("signatures") or []
    if not isinstance(sigs, list) or not sigs:
        raise _Invalid("'signatures' must be a non-empty list", index, eid, ("signatures",))
    excludes = raw.get("excludes") or []
    if not isinstance(excludes, list):
        raise _Invalid("'excludes' must be a list", index, eid, ("excludes",))
    extract_raw = raw.get("extract") or []
    if not isinstance(extract_raw, list):
        raise _Invalid("'extract' must be a list", index, eid, ("extract",))
    extract = []
    for pos, item in enumerate(extract_raw):
        if (
            not isinstance(item, Mapping)
            or not isinstance(item.get("name"), str)
            or not isinstance(item.get("regex"), str)
        ):
            raise _Invalid(f"'extract[{pos}]' needs name and regex", index, eid, ("extract", pos))
        try:
            if re.compile(item["regex"]).groups < 1:
                raise _Invalid(
                    f"'extract[{pos}].regex' needs a capture group", index, eid, ("extract", pos)
                )
        except re.error as err:
            raise _Invalid(
                f"'extract[{pos}].regex' does not compile: {err}", index, eid, ("extract", pos)
            ) from None
        _check_backtracking(item["regex"], False, f"extract[{pos}].regex", ctx, ("extract", pos))
        extract.append(Extractor(name=item["name"], regex=item["regex"]))
    fixes_raw = raw.get("fixes") or []
    if not isinstance(fixes_raw, list):
        raise _Invalid("'fixes' must be a list", index, eid, ("fixes",))
    refs = _str_list(raw.get("references"), "references", ctx)
    if severity == "error" and not refs:
        raise _Invalid("'references' needs at least one URL", index, eid, ("references",))
    for pos, ref in enumerate(refs):
        if not ref.startswith(("https://", "http://")):
            raise _Invalid(f"'references[{pos}]' must be a URL", index, eid, ("references", pos))
    return Entry(
        id=eid,
        title=_loc_text(raw.get("title"), "title", ctx),
        summary=_loc_text(raw.get("summary"), "summary", ctx),
        explanation=_loc_text(raw.get("explanation"), "explanation", ctx),
        caveats=_loc_text(raw.get("caveats"), "caveats", ctx, required=False),
        severity=severity,
        priority=priority,
        signatures=tuple(_signature(s, "signatures", i, ctx) for i, s in enumerate(sigs)),
        excludes=tuple(_signature(s, "excludes", i, ctx) for i, s in enumerate(excludes)),
        symptoms=_str_list(raw.get("symptoms"), "symptoms", ctx),
        extract=tuple(extract),
        checks=_str_list(raw.get("checks"), "checks", ctx),
        fixes=tuple(_fix(f, i, ctx) for i, f in enumerate(fixes_raw)),
        references=refs,
        origin=origin,
    )


def parse_kb_text(text: str, origin: str) -> tuple[Entry, ...]:
    """Parse and validate one KB file's text.

    Raises:
        KbError: naming the file, the line, the entry id and the field.
    """
    try:
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise KbError(f"{origin}{line}: not valid YAML ({problem})") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("entries"), list):
        raise KbError(f"{origin}: expected a mapping with 'schema: {SCHEMA}' and an 'entries' list")
    if data.get("schema", SCHEMA) != SCHEMA:
        raise KbError(f"{origin}: unsupported schema {data.get('schema')!r} (expected {SCHEMA})")
    entries: list[Entry] = []
    seen: set[str] = set()
    try:
        for index, raw in enumerate(data["entries"]):
            entry = _entry(raw, index, origin)
            if entry.id in seen:
                raise _Invalid(f"duplicate id {entry.id!r}", index, entry.id, ("id",))
            seen.add(entry.id)
            entries.append(entry)
    except _Invalid as bad:
        line = _locate(text, bad.index, bad.path)
        where = f"{origin}:{line}" if line else origin
        who = (
            f" entry {bad.entry_id!r}"
            if bad.entry_id
            else (f" entry #{bad.index + 1}" if bad.index is not None else "")
        )
        raise KbError(f"{where}:{who} {bad.message}") from None
    return tuple(entries)
