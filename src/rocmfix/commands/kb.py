"""`rocmfix kb`: validate, list, show and evaluate the knowledge base.

``kb eval CASES.jsonl`` reads labelled cases (``{"id", "text", "label",
"alt_labels"}``, label ``none`` for logs with no ROCm root cause) and prints
top-1, top-3, the share of unrelated logs left unmatched, per kind of report
(log / mixed / prose, see ``rocmfix.kb.kinds``) and per id, and every miss.
``kb eval --repo tests/data`` evaluates every labelled real report the
repository holds; with a split (``--split``, by default ``DIR/split.json`` for
``--repo``) the tune and frozen sides are reported apart, and frozen misses only
as counts per id and kind (nothing is ever tuned on their texts).
``--bury N`` hides each case at the end of N lines of noisy training output,
the way a real failed run looks.
``kb train --data DIR`` retrains the learned ranker from DIR's tune side
(``rocmfix.kb.train``; needs scikit-learn, a training-time dependency only).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
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
    ev.add_argument("cases", nargs="*", metavar="CASES.jsonl")
    ev.add_argument(
        "--repo",
        metavar="DIR",
        help="evaluate every labelled report under DIR (heldout/*.jsonl, logs/<id>/*.txt)",
    )
    ev.add_argument(
        "--split",
        metavar="SPLIT.json",
        help="report tune and frozen sides apart (default with --repo: DIR/split.json)",
    )
    ev.add_argument(
        "--bury", type=int, default=0, metavar="N", help="bury each case after N lines of noise"
    )
    ev.add_argument("--every", type=int, default=1, metavar="K", help="only every K-th case")
    ev.add_argument(
        "--no-ranker", action="store_true", help="signatures and symptoms only (no learned ranker)"
    )
    ev.add_argument("--json", action="store_true")
    tr = sub.add_parser(
        "train",
        help="retrain the learned ranker from labelled reports (needs scikit-learn)",
        description="Retrain the learned ranker from the tune side of DIR/split.json "
        "(DIR/heldout/*.jsonl, DIR/logs/<id>/*.txt); grouped cross-validation figures "
        "are printed, the artifact is written atomically and deterministically.",
    )
    tr.add_argument("--data", default="tests/data", metavar="DIR", help="default: tests/data")
    tr.add_argument(
        "--out", metavar="PATH", help="artifact to write (default: the one rocmfix loads)"
    )
    tr.add_argument(
        "--compare", action="store_true", help="also kNN and the leave-rounds-out estimate"
    )
    tr.add_argument("--report", metavar="JSON", help="write the cross-validation figures here")


def run(args: argparse.Namespace) -> int:
    return {
        "validate": _validate,
        "list": _list,
        "show": _show,
        "eval": _eval,
        "train": _train,
    }[args.action](args)


# ----------------------------------------------------------------- train


def _train(args: argparse.Namespace) -> int:
    if args.out:  # refused before anything is learned: the artifact is written by rename
        from rocmfix import safeio  # noqa: PLC0415

        try:
            args.out = safeio.replace_target(args.out)
        except OSError as err:
            raise InputError(f"--out {args.out}: cannot write ({safeio.describe(err)})") from None
    try:
        import numpy  # noqa: F401, PLC0415
        import scipy  # noqa: F401, PLC0415
        import sklearn  # noqa: F401, PLC0415
    except ImportError as err:
        raise InputError(
            f"rocmfix kb train needs scikit-learn, numpy and scipy ({err.name or err} is missing); "
            "they are training-time tools, not dependencies of rocmfix",
            hint="pip install scikit-learn (in a virtual environment of your own)",
        ) from None
    from rocmfix.kb.ranker import artifact_path  # noqa: PLC0415
    from rocmfix.kb.train import train  # noqa: PLC0415

    data = Path(args.data)
    if not (data / "heldout").is_dir() and not (data / "logs").is_dir():
        raise InputError(f"{data}: no heldout/ or logs/ folder of labelled reports")
    if not (data / "split.json").is_file():
        raise InputError(f"{data}: no split.json (the frozen split decides what is learned from)")
    out = Path(args.out) if args.out else artifact_path()
    if not out.parent.is_dir():
        raise InputError(f"{out.parent}: no such folder")
    try:
        train(data, out, compare=args.compare, report_path=args.report)
    except ValueError as err:
        raise InputError(str(err)) from None
    except OSError as err:
        raise InputError(f"{out}: cannot write ({err.strerror})") from None
    return 0


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
    paths += [Path(p) for p in args.kb if Path(p) not in paths]  # `kb --kb FILE validate`
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
        from rocmfix._lang import locale_lang  # noqa: PLC0415
        from rocmfix.i18n_errors import MESSAGES, translate  # noqa: PLC0415

        zh = locale_lang() == "zh"
        for item in report:
            if item["ok"] and zh:
                print(f"通过  {item['path']}（{item['entries']} 个条目）")
            elif item["ok"]:
                print(f"ok    {item['path']} ({item['entries']} entries)")
            else:
                print(f"{'失败' if zh else 'FAIL'}  {item['path']}")
                for err in item["errors"]:
                    print(f"      {translate(err, MESSAGES, 'zh' if zh else 'en')}")
    return int(ExitCode.PROBLEMS_FOUND if bad else ExitCode.OK)


# ----------------------------------------------------------------- list / show


def _load(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from rocmfix.kb.loader import load_kb  # noqa: PLC0415

    kb = load_kb(args.kb)
    if kb.problems:
        from rocmfix._lang import locale_lang  # noqa: PLC0415
        from rocmfix.i18n_errors import warning  # noqa: PLC0415

        lang = getattr(args, "lang", None) or locale_lang()
        for problem in kb.problems:
            print(warning(problem, lang), file=sys.stderr)
    return kb


def _list(args: argparse.Namespace) -> int:
    kb = _load(args)
    if args.json:
        rows = [{"id": e.id, "severity": e.severity, "title": e.text("title")} for e in kb.entries]
        print(json.dumps({"schema": "rocmfix.kb-list/1", "entries": rows}, ensure_ascii=False))
        return 0
    from rocmfix._lang import locale_lang  # noqa: PLC0415

    lang = locale_lang()
    width = max((len(e.id) for e in kb.entries), default=10)
    for e in kb.entries:
        title = e.text("title", lang)
        mark = ("" if "无害" in title else "（无害）") if lang == "zh" else " (benign)"
        print(f"{e.id:<{width}}  {title}{mark if e.benign else ''}")
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
        from rocmfix._record import asdict  # noqa: PLC0415

        doc = {"schema": "rocmfix.kb-entry/1", **asdict(entry)}
        print(json.dumps(doc, ensure_ascii=False, default=str))
        return 0
    from rocmfix.kb.model import pick  # noqa: PLC0415

    zh = lang == "zh"
    label = dict(  # noqa: C408
        caveats="注意：" if zh else "Caveats: ",
        symptoms="症状：" if zh else "Symptoms:",
        checks="检查：" if zh else "Checks: ",
        fixes="修复：" if zh else "Fixes:",
        refs="参考资料：" if zh else "References:",
    )
    risk_levels = {"low": "低", "medium": "中", "high": "高"} if zh else {}
    lines = [
        f"{entry.id}: {entry.text('title', lang)}",
        "",
        entry.text("summary", lang),
        "",
        entry.text("explanation", lang),
    ]
    if entry.caveats:
        lines += ["", label["caveats"] + entry.text("caveats", lang)]
    if entry.symptoms:
        lines += ["", label["symptoms"]] + [f"  - {s}" for s in entry.symptoms]
    if entry.checks:
        lines += ["", label["checks"] + ", ".join(entry.checks)]
    if entry.fixes:
        lines += ["", label["fixes"]]
        for n, fix in enumerate(entry.fixes, 1):
            tag = (f"[action {fix.action}]" if zh else f" [action {fix.action}]") if fix.action else ""
            risk = risk_levels.get(fix.risk, fix.risk)
            root = ("，需要 root" if zh else ", root") if fix.root else ""
            note = f"（风险：{risk}{root}）" if zh else f" (risk {risk}{root})"
            lines.append(f"  {n}. {pick(fix.text, lang)}{tag}{note}")
            lines += [f"     $ {c}" for c in fix.commands]
    lines += ["", label["refs"]] + [f"  - {r}" for r in entry.references]
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
    from rocmfix import safeio  # noqa: PLC0415
    from rocmfix.termtext import plain  # noqa: PLC0415

    try:  # a FIFO waited for a writer forever, /dev/zero filled memory
        raw = safeio.read_bytes(path, 256 * safeio.MiB).decode("utf-8", errors="replace")
    except OSError as err:
        raise InputError(f"{path}: cannot read ({safeio.describe(err)})") from None
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
        for key in ("label", "id", "source"):  # printed with the misses: no escapes
            if isinstance(case.get(key), str):
                case[key] = plain(case[key])
        cases.append(case)
    if not cases:
        raise InputError(f"{path}: no cases")
    return cases


def _figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    # A case labelled with a benign entry has no root cause: it counts as a look-alike.
    related = [r for r in rows if r["label"] != "none" and not r["benign"]]
    unrelated = [r for r in rows if r["label"] == "none" or r["benign"]]
    named = [r for r in rows if r["got"] != "none"]
    return {
        "cases": len(rows),
        "top1": sum(r["top1"] for r in related) / len(related) if related else None,
        "top3": sum(r["top3"] for r in related) / len(related) if related else None,
        "unrelated_unmatched": (
            sum(r["ok"] for r in unrelated) / len(unrelated) if unrelated else None
        ),
        "confident_right": (
            sum(r["got"] == r["label"] or r["got"] in r["alt"] for r in named) / len(named)
            if named
            else None
        ),
    }


def _summary(rows: list[dict[str, Any]], *, with_misses: bool) -> dict[str, Any]:
    from rocmfix.kb.kinds import KINDS  # noqa: PLC0415

    out = _figures(rows)
    out["by_kind"] = {
        k: _figures([r for r in rows if r["kind"] == k])
        for k in KINDS
        if any(r["kind"] == k for r in rows)
    }
    by_id: dict[str, dict[str, int]] = {}
    for r in rows:
        s = by_id.setdefault(r["label"], {"cases": 0, "right": 0, "top3": 0})
        s["cases"] += 1
        s["right"] += r["ok"]
        s["top3"] += r["top3"] if r["label"] != "none" else r["ok"]
    out["by_id"] = dict(sorted(by_id.items()))
    misses = [r for r in rows if not r["ok"]]
    if with_misses:
        out["misses"] = [
            {k: r[k] for k in ("id", "label", "kind", "got", "top3_ids", "confidence")}
            for r in misses
        ]
        for m in out["misses"]:
            m["top3"] = m.pop("top3_ids")
    else:  # frozen: how many, per id and kind; never which texts
        out["miss_counts"] = {
            "by_id": dict(sorted(Counter(r["label"] for r in misses).items())),
            "by_kind": dict(sorted(Counter(r["kind"] for r in misses).items())),
        }
    return out


def evaluate(
    cases: list[dict[str, Any]],
    kb: Any,
    bury: int = 0,
    *,
    split: Any = None,
    ranker: bool = True,
) -> dict[str, Any]:
    """Top-1 / top-3 / unrelated-left-unmatched over labelled cases, by kind and id.

    With ``split`` (a :class:`rocmfix.kb.split.Split`) the result also holds
    ``sides``: the tune and frozen figures apart, the frozen misses as counts only.
    """
    from rocmfix.kb.kinds import text_kind  # noqa: PLC0415
    from rocmfix.kb.matcher import Matcher, matcher_for  # noqa: PLC0415

    matcher = matcher_for(kb) if ranker else Matcher(kb, use_ranker=False)
    noise = "\n".join(noise_lines(bury)) + "\n" if bury else ""
    benign = {e.id for e in kb.entries if e.benign}
    rows = []
    for case in cases:
        result = matcher.explain_text(noise + case["text"])
        confident = [m.entry.id for m in result.matches if m.confident]
        ranked = [m.entry.id for m in result.matches[:3]]
        label = case["label"]
        got = confident[0] if confident else "none"
        ok = got == label
        if label in benign:  # harmless lines: right when no cause is named and the line is
            ok = got == "none" and label in {b.entry.id for b in result.benign}
        rows.append(
            {
                "id": case.get("id"),
                "label": label,
                "alt": list(case.get("alt_labels") or []),
                "kind": text_kind(case["text"]),
                "side": split.side(str(case.get("source", ""))) if split is not None else None,
                "got": got,
                "ok": ok,
                "benign": label in benign,
                "top1": ok,
                "top3": ok or label in ranked,
                "top3_ids": ranked,
                "confidence": result.matches[0].confidence if result.matches else 0.0,
            }
        )
    frozen_present = split is not None and any(r["side"] == "frozen" for r in rows)
    # Without a split every miss is listed (the caller's own cases); with one, the
    # overall list would name frozen misses, so it is left out.
    report = _summary(rows, with_misses=not frozen_present)
    if split is not None:
        report["sides"] = {
            side: _summary([r for r in rows if r["side"] == side], with_misses=side == "tune")
            for side in ("tune", "frozen")
            if any(r["side"] == side for r in rows)
        }
    if "misses" not in report:
        report["misses"] = []
    return report


def _eval(args: argparse.Namespace) -> int:
    from rocmfix.kb.split import Split, repo_cases  # noqa: PLC0415

    cases: list[dict[str, Any]] = []
    for path in args.cases:
        cases += _read_cases(path)
    split_path = args.split
    if args.repo:
        root = Path(args.repo)
        if not (root / "heldout").is_dir() and not (root / "logs").is_dir():
            raise InputError(f"{root}: no heldout/ or logs/ folder of labelled reports")
        cases += repo_cases(root)
        if split_path is None and (root / "split.json").is_file():
            split_path = str(root / "split.json")
    if not cases:
        raise InputError("no cases", hint="give CASES.jsonl files or --repo tests/data")
    split = None
    if split_path:
        try:
            split = Split.load(split_path)
        except (OSError, ValueError) as err:
            raise InputError(f"{split_path}: not a usable split ({err})") from None
    cases = cases[:: max(args.every, 1)]
    report = evaluate(cases, _load(args), bury=args.bury, split=split, ranker=not args.no_ranker)
    if args.json:
        print(json.dumps({"schema": "rocmfix.kb-eval/2", **report}))
        return 0
    print(
        f"cases: {report['cases']}"
        + (f" (each buried after {args.bury} noise lines)" if args.bury else "")
        + ("" if not args.no_ranker else " (signatures only)")
    )
    if split is None:
        _print_summary("all", report)
    else:
        for side, part in report["sides"].items():
            _print_summary(side, part)
    return 0


def _pct(x: float | None) -> str:
    return "  n/a" if x is None else f"{x:5.1%}"


def _print_summary(name: str, rep: dict[str, Any]) -> None:
    for miss in rep.get("misses", []):
        print(
            f"   miss {miss['id']}: expected {miss['label']} ({miss['kind']}), got {miss['got']} "
            f"(top3 {', '.join(miss['top3']) or '-'}; conf {miss['confidence']:.2f})"
        )
    print()
    print(f"== {name}: {rep['cases']} cases")
    print(
        f"   {'':8} {'cases':>5}  {'top-1':>6} {'top-3':>6} {'look-alikes left alone':>22}  "
        f"{'conf>=0.5 right':>15}"
    )
    rows = [("all", rep)] + list(rep["by_kind"].items())
    for kind, f in rows:
        print(
            f"   {kind:8} {f['cases']:>5}  {_pct(f['top1']):>6} {_pct(f['top3']):>6} "
            f"{_pct(f['unrelated_unmatched']):>22}  {_pct(f['confident_right']):>15}"
        )
    print("   per id (right / cases, top-3):")
    for label, s in rep["by_id"].items():
        print(f"     {label:40} {s['right']:>3}/{s['cases']:<3} top-3 {s['top3']:>3}")
    if "miss_counts" in rep:
        counts = rep["miss_counts"]
        print("   misses (counts only; texts are not read):")
        print("     by kind: " + ", ".join(f"{k} {n}" for k, n in counts["by_kind"].items()))
