"""`rocmfix explain`: name the root cause of an error message or a whole log.

Input is an argument, ``-`` (stdin, so ``python train.py 2>&1 | rocmfix explain -``
works) or ``--file PATH`` (plain or gzip). ``--json`` prints exactly one
``rocmfix.explain/1`` object. Exit codes: 0 a confident match, 1 none, 2 usage
or input error. This path imports neither textual nor torch, and rich only for
human output.
"""

from __future__ import annotations

import argparse
import json
import sys

from rocmfix.errors import ExitCode, InputError

TYPE_CHECKING = False  # typing is not imported at run time (start-up cost)
if TYPE_CHECKING:
    from typing import Any

SCHEMA = "rocmfix.explain/1"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("text", nargs="*", help="error text, or '-' to read stdin")
    parser.add_argument("-f", "--file", metavar="PATH", help="read a log file (plain or .gz)")
    parser.add_argument(
        "--top", type=_at_least_one, default=3, metavar="N", help="show up to N causes (default 3)"
    )
    parser.add_argument("--lang", choices=("en", "zh"), help="language (default: from the locale)")
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object (schema rocmfix.explain/1)"
    )
    parser.add_argument(
        "--kb", action="append", default=[], metavar="PATH", help="extra KB file(s) to merge"
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="also run the live checks the top matches name and say which cause this machine confirms",
    )
    parser.add_argument(
        "--python",
        metavar="PATH",
        help="interpreter whose torch --check probes (default: this one)",
    )
    parser.add_argument(
        "--snapshot", metavar="DIR", help="with --check: check a recorded machine (rocmfix collect)"
    )


def _at_least_one(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {number}")
    return number


def default_lang() -> str:
    """``zh`` when the locale says Chinese, else ``en``."""
    from rocmfix._lang import locale_lang

    return locale_lang()


def _explain(args: argparse.Namespace):  # type: ignore[no-untyped-def]  # returns matcher.Explanation
    from rocmfix.extract import open_input, open_log
    from rocmfix.kb.loader import load_kb
    from rocmfix.kb.matcher import matcher_for

    sources = [bool(args.file), bool(args.text)]
    if sum(sources) != 1:
        raise InputError(
            "give the error text, '-' for stdin, or --file PATH (exactly one)",
            hint='rocmfix explain "hipErrorNoBinaryForGpu"  or  python train.py 2>&1 | rocmfix explain -',
        )
    kb = load_kb(args.kb)
    for problem in kb.problems:
        print(f"rocmfix: warning: {problem}", file=sys.stderr)
    matcher = matcher_for(kb)
    if args.file:
        with open_input(args.file) as stream:
            result = matcher.explain_stream(stream)
    elif args.text == ["-"]:
        # gzip/xz/bzip2 on a pipe are decompressed; a closed stdin is a clear error
        result = matcher.explain_stream(open_log("-"))
    else:
        result = matcher.explain_text(" ".join(args.text))
    # Over 30% control bytes or invalid UTF-8 in the first block: a core file or an
    # archive, not a log; any "match" in it would be chance.
    if result.excerpt.binary:
        raise InputError("the input looks like binary data, not a text log")
    if result.excerpt.bytes == 0:
        raise InputError(
            "the input is empty", hint="paste the error text or point --file at the log"
        )
    return result


def to_json(result: Any, top: int, lang: str, checks: Any = None) -> dict[str, Any]:
    """The stable ``rocmfix.explain/1`` object for an Explanation."""
    from rocmfix.kb.ranker import similar_cases

    matches = []
    for m in result.matches[: max(top, 0)]:
        similar = similar_cases(result, m.entry.id) if m.confident else []
        matches.append(
            {
                "id": m.entry.id,
                "title": m.entry.text("title", lang),
                "confidence": round(m.confidence, 3),
                "evidence": [e.to_json() for e in m.evidence],
                "params": dict(m.params),
                "fixes": [f.to_json() for f in m.fixes(lang)],
                "references": list(m.entry.references),
                "similar": [c.to_json() for c in similar],
            }
        )
    out: dict[str, Any] = {
        "schema": SCHEMA,
        "input": {"bytes": result.excerpt.bytes, "lines": result.excerpt.lines},
        "matches": matches,
        "benign": [
            {
                "id": b.entry.id,
                "title": b.entry.text("title", lang),
                "evidence": [e.to_json() for e in b.evidence],
            }
            for b in result.benign
        ],
    }
    first = result.excerpt.first_fatal
    # The first real error of a run, told apart from the follow-on errors it caused.
    out["first_error"] = {"line": first.first_line, "text": first.text} if first else None
    if result.top is None:
        # What would settle it: more of the log, or the machine's own checks.
        out["needs"] = NEEDS
    if checks is not None:
        out["checks"] = checks
    return out


NEEDS = "paste the full log (the whole traceback, from the first error), or run `rocmfix explain --check`"


def with_machine_params(result: Any, machine: dict[str, str]) -> Any:
    """Fill values the text lacked (e.g. the gfx) from the machine; the text wins."""
    from rocmfix._record import replace
    from rocmfix.kb.render import derive

    if not machine:
        return result
    matches = tuple(replace(m, params=derive({**machine, **m.params})) for m in result.matches)
    return replace(result, matches=matches)


def run(args: argparse.Namespace) -> int:
    lang = args.lang or default_lang()
    result = _explain(args)
    checks = None
    if args.check:
        from rocmfix.commands._explain_check import confirm_with_checks

        checks, machine = confirm_with_checks(
            result, args.top, python=args.python, snapshot=args.snapshot
        )
        result = with_machine_params(result, machine)
    code = ExitCode.OK if result.top else ExitCode.PROBLEMS_FOUND
    if args.json:
        json.dump(to_json(result, args.top, lang, checks), sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        return int(code)
    from rocmfix.commands._explain_render import render

    render(result, top=args.top, lang=lang, checks=checks)
    return int(code)
