"""`rocmfix kb`: validate, list, show and evaluate the knowledge base.

``kb eval CASES.jsonl`` reads labelled cases (``{"id", "text", "label",
"alt_labels"}``, label ``none`` for logs with no ROCm root cause) and prints
top-1, top-3, the share of unrelated logs left unmatched, and every miss.
``--bury N`` hides each case at the end of N lines of noisy training output,
the way a real failed run looks.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

from rocmfix.errors import ExitCode, InputError, KbError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--kb", action="append", default=[], metavar="PATH", help="extra KB file(s) to merge"
    )
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    v = sub.add_parser(
        "validate",
        help="validate KB files (default: the built-in KB and your kb.d)",
        description="Validate KB files: each problem names file, line, entry and field.",
    )
    v.add_argument("paths", nargs="*", metavar="PATH")
    v.add_argument("--json", action="store_true")
    ls = sub.add_parser(
        "list", help="list entries", description="List every entry: id, severity and title."
    )
    ls.add_argument("--json", action="store_true")
    show = sub.add_parser(
        "show",
        help="show one entry",
        description="Show one entry: summary, explanation, fixes and references.",
    )
    show.add_argument("id")
    show.add_argument("--lang", choices=("en", "zh"))
    show.add_argument("--json", action="store_true")
    ev = sub.add_parser(
        "eval",
        help="accuracy on labelled cases (JSON lines)",
        description="Top-1, top-3 and unrelated-left-unmatched over labelled cases "
        '(one {"text", "label"} object per line; label "none" for unrelated logs).',
    )
    ev.add_argument("cases", metavar="CASES.jsonl", nargs="+")
    ev.add_argument(
        "--bury", type=int, default=0, metavar="N", help="bury each case after N lines of noise"
    )
    ev.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    return {"validate": _validate, "list": _list, "show": _show, "eval": _eval}[args.action](args)


# ----------------------------------------------------------------- validate


def cross_check(entries: Any) -> list[str]:
    """Problems between entries and the code: unknown action ids or check ids."""
    problems: list[str] = []
    try:
        from rocmfix.actions import ACTIONS  # noqa: PLC0415

        actions: set[str] | None = set(ACTIONS)
    except ImportError:
        actions = None
    try:
        from rocmfix.probes import CHECKS  # noqa: PLC0415

        checks: set[str] | None = set(CHECKS)
    except ImportError:
        checks = None
    for e in entries:
        for fix in e.fixes:
            if actions is not None and fix.action and fix.action not in actions:
                problems.append(
                    f"{e.origin}: entry {e.id!r}: fix names unknown action {fix.action!r}"
                )
        for check in e.checks:
            if checks is not None and check not in checks:
                problems.append(f"{e.origin}: entry {e.id!r}: names unknown check {check!r}")
    return problems


def _validate(args: argparse.Namespace) -> int:
    from rocmfix.kb.loader import builtin_kb_path, read_kb_file, user_kb_dir  # noqa: PLC0415

    paths = [Path(p) for p in args.paths]
    if not paths:
        paths = [builtin_kb_path()]
        kbd = user_kb_dir()
        if kbd.is_dir():
            paths += sorted(p for p in kbd.iterdir() if p.suffix in (".yaml", ".yml"))
    report, bad = [], 0
    for path in paths:
        try:
            entries = read_kb_file(path)
        except KbError as err:
            bad += 1
            report.append({"path": str(path), "ok": False, "errors": [err.message]})
            continue
        problems = cross_check(entries)
        bad += bool(problems)
        report.append(
            {"path": str(path), "ok": not problems, "entries": len(entries), "errors": problems}
        )
    if args.json:
        print(json.dumps({"schema": "rocmfix.kb-validate/1", "files": report}))
    else:
        for item in report:
            if item["ok"]:
                print(f"ok    {item['path']} ({item['entries']} entries)")
            else:
                print(f"FAIL  {item['path']}")
                for err in item["errors"]:
                    print(f"      {err}")
    return int(ExitCode.PROBLEMS_FOUND if bad else ExitCode.OK)


# ----------------------------------------------------------------- list / show


def _load(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from rocmfix.kb.loader import load_kb  # noqa: PLC0415

    kb = load_kb(args.kb)
    for problem in kb.problems:
        print(f"rocmfix: warning: {problem}", file=sys.stderr)
    return kb


def _list(args: argparse.Namespace) -> int:
    kb = _load(args)
    if args.json:
        rows = [{"id": e.id, "severity": e.severity, "title": e.text("title")} for e in kb.entries]
        print(json.dumps({"schema": "rocmfix.kb-list/1", "entries": rows}, ensure_ascii=False))
        return 0
    width = max((len(e.id) for e in kb.entries), default=10)
    for e in kb.entries:
        mark = " (benign)" if e.benign else ""
        print(f"{e.id:<{width}}  {e.text('title')}{mark}")
    return 0


def _show(args: argparse.Namespace) -> int:
    from rocmfix.commands.explain import default_lang  # noqa: PLC0415

    kb = _load(args)
    entry = kb.get(args.id)
    if entry is None:
        from rapidfuzz import process  # noqa: PLC0415

        near = [m[0] for m in process.extract(args.id, kb.ids, limit=3)]
        raise InputError(
            f"no KB entry {args.id!r}", hint=f"did you mean: {', '.join(near)}?" if near else None
        )
    lang = args.lang or default_lang()
    if args.json:
        from dataclasses import asdict  # noqa: PLC0415

        doc = {"schema": "rocmfix.kb-entry/1", **asdict(entry)}
        print(json.dumps(doc, ensure_ascii=False, default=str))
        return 0
    lines = [
        f"{entry.id}: {entry.text('title', lang)}",
        "",
        entry.text("summary", lang),
        "",
        entry.text("explanation", lang),
    ]
    if entry.caveats:
        lines += ["", "Caveats: " + entry.text("caveats", lang)]
    if entry.symptoms:
        lines += ["", "Symptoms:"] + [f"  - {s}" for s in entry.symptoms]
    if entry.checks:
        lines += ["", "Checks: " + ", ".join(entry.checks)]
    if entry.fixes:
        lines += ["", "Fixes:"]
        for n, fix in enumerate(entry.fixes, 1):
            tag = f" [action {fix.action}]" if fix.action else ""
            lines.append(
                f"  {n}. {fix.text.get(lang) or fix.text['en']}{tag} (risk {fix.risk}{', root' if fix.root else ''})"
            )
            lines += [f"     $ {c}" for c in fix.commands]
    lines += ["", "References:"] + [f"  - {r}" for r in entry.references]
    print("\n".join(lines))
    return 0


# ----------------------------------------------------------------- eval

_NOISE = (
    "Epoch {e}/100: {p}%|#####     | {s}/5000 [00:{m:02d}<01:10, 12.3it/s, loss={l:.4f}]",
    "[rank{r}]:[W reducer.cpp:1360] Warning: find_unused_parameters=True was specified but no unused parameters",
    "node{r}:{pid}:{pid} [0] NCCL INFO Channel {c:02d}/32 :    0   1   2   3",
    "{{'loss': {l:.4f}, 'grad_norm': {g:.3f}, 'learning_rate': 1.9e-05, 'epoch': {f:.2f}}}",
    "INFO:root:step {s} throughput {t:.1f} samples/s",
    "/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py:557: UserWarning: This DataLoader will create 8 worker processes",
    "wandb: WARNING Step must only increase in log calls.",
)


def noise_lines(n: int, seed: int = 0) -> list[str]:
    """Plausible training-run chatter used to bury eval cases."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        tpl = _NOISE[rng.randrange(len(_NOISE))]
        out.append(
            tpl.format(
                e=i // 500 + 1,
                p=i % 100,
                s=i,
                m=i % 60,
                l=rng.random(),
                r=i % 8,
                pid=1000 + i % 8,
                c=i % 32,
                g=rng.random() * 3,
                f=i / 5000,
                t=100 + rng.random(),
            )
        )
    return out


def _read_cases(path: str) -> list[dict[str, Any]]:
    try:
        raw = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as err:
        raise InputError(f"{path}: cannot read ({err.strerror})") from None
    cases = []
    for n, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
        except json.JSONDecodeError as err:
            raise InputError(f"{path}:{n}: not JSON ({err.msg})") from None
        if not isinstance(case, dict) or "text" not in case or "label" not in case:
            raise InputError(f"{path}:{n}: a case needs 'text' and 'label'")
        cases.append(case)
    if not cases:
        raise InputError(f"{path}: no cases")
    return cases


def evaluate(cases: list[dict[str, Any]], kb: Any, bury: int = 0) -> dict[str, Any]:
    """Top-1 / top-3 / unrelated-left-unmatched over labelled cases."""
    from rocmfix.kb.matcher import matcher_for  # noqa: PLC0415

    matcher = matcher_for(kb)
    noise = "\n".join(noise_lines(bury)) + "\n" if bury else ""
    related = top1 = top3 = unrelated = unrelated_ok = 0
    misses = []
    for case in cases:
        result = matcher.explain_text(noise + case["text"])
        confident = [m.entry.id for m in result.matches if m.confident]
        ranked = [m.entry.id for m in result.matches[:3]]
        label = case["label"]
        got = confident[0] if confident else "none"
        if label == "none":
            unrelated += 1
            unrelated_ok += got == "none"
            ok = got == "none"
        else:
            related += 1
            top1 += got == label
            top3 += label in ranked
            ok = got == label
        if not ok:
            misses.append(
                {
                    "id": case.get("id"),
                    "label": label,
                    "got": got,
                    "top3": ranked,
                    "confidence": result.matches[0].confidence if result.matches else 0.0,
                }
            )
    return {
        "cases": len(cases),
        "top1": top1 / related if related else None,
        "top3": top3 / related if related else None,
        "unrelated_unmatched": unrelated_ok / unrelated if unrelated else None,
        "misses": misses,
    }


def _eval(args: argparse.Namespace) -> int:
    cases = [case for path in args.cases for case in _read_cases(path)]
    report = evaluate(cases, _load(args), bury=args.bury)
    if args.json:
        print(json.dumps({"schema": "rocmfix.kb-eval/1", **report}))
        return 0

    def pct(x: float | None) -> str:
        return "n/a" if x is None else f"{x:.1%}"

    for miss in report["misses"]:
        print(
            f"miss {miss['id']}: expected {miss['label']}, got {miss['got']} "
            f"(top3 {', '.join(miss['top3']) or '-'}; conf {miss['confidence']:.2f})"
        )
    # the summary last, where a long list of misses does not scroll it away
    print(
        f"cases: {report['cases']}"
        + (f" (each buried after {args.bury} noise lines)" if args.bury else "")
    )
    print(f"top-1: {pct(report['top1'])}")
    print(f"top-3: {pct(report['top3'])}")
    print(f"unrelated logs left unmatched: {pct(report['unrelated_unmatched'])}")
    return 0
