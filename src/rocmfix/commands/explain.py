"""`rocmfix explain`: name the root cause of an error message or a whole log.

Input is an argument, ``-`` (stdin, so ``python train.py 2>&1 | rocmfix explain -``
works) or ``--file PATH`` (plain or gzip). ``--json`` prints exactly one
``rocmfix.explain/1`` object. Exit codes: 0 a confident match, 1 none, 2 usage
or input error. This path imports neither textual nor torch, and rich only for
human output.

A plain command line (text, ``--json``, ``--lang``, ``--top``) is read by
:func:`quick_args` and the JSON written by :func:`dumps`, so that a one-line
``explain --json`` imports neither argparse (with gettext and locale) nor json,
nor, through them, ``re`` and ``enum``: about a fifth of its run otherwise.
"""

from __future__ import annotations

import sys

from rocmfix.errors import ExitCode, InputError

TYPE_CHECKING = False  # typing, argparse and json are not imported at run time (start-up cost)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
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
    import argparse  # noqa: PLC0415 - argparse calls this, so it is loaded already

    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {number}")
    return number


class Args:
    """The attributes argparse's Namespace would have (see :func:`quick_args`)."""

    def __init__(self, **values: object) -> None:
        self.__dict__.update(values)

    def __repr__(self) -> str:
        return f"Args({', '.join(f'{k}={v!r}' for k, v in self.__dict__.items())})"


def quick_args(argv: Sequence[str]) -> Args | None:
    """``argv`` parsed as :func:`configure`'s parser would parse it, for the plain forms
    only: text words (one run), ``--json``, ``--lang en|zh`` (or ``--lang=``) and
    ``--top N``. Anything else (another option, ``-``, ``--``, an abbreviation, a
    value argparse would refuse, text split by an option) is None: argparse parses it
    and gives its help and its errors. tests/test_cold_start.py holds the two equal.
    """
    values: dict[str, Any] = {
        "text": [],
        "file": None,
        "top": 3,
        "lang": None,
        "json": False,
        "kb": [],
        "check": False,
        "python": None,
        "snapshot": None,
    }
    runs, in_text, i, n = 0, False, 0, len(argv)
    while i < n:
        word = argv[i]
        if not word.startswith("-"):
            if not in_text:
                runs += 1
                if runs > 1:  # argparse fills a '*' positional from one run of words
                    return None
            values["text"].append(word)
            in_text = True
            i += 1
            continue
        in_text = False
        if word == "--json":
            values["json"] = True
            i += 1
        elif word.startswith("--lang="):
            if word[7:] not in ("en", "zh"):
                return None
            values["lang"] = word[7:]
            i += 1
        elif word in ("--lang", "--top") and i + 1 < n:
            value = argv[i + 1]
            if word == "--lang":
                if value not in ("en", "zh"):
                    return None
                values["lang"] = value
            else:
                if not (value.isascii() and value.isdigit() and int(value) >= 1):
                    return None
                values["top"] = int(value)
            i += 2
        else:
            return None
    return Args(**values)


def dumps(obj: object) -> str:
    """``json.dumps(obj, ensure_ascii=False)``, through the C encoder of ``_json``
    (the module behind json's own one-shot path) when it gives the same text."""
    encode = _c_encoder()
    if encode is not None:
        return "".join(encode(obj, 0))
    import json  # noqa: PLC0415

    return json.dumps(obj, ensure_ascii=False)


_ENCODER: list[Any] = []


def _not_json(o: object) -> object:
    raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")


def _c_encoder() -> Any:
    """json.dumps' own encoder (markers, default, string encoder, indent, separators,
    sort_keys, skipkeys, allow_nan), or None where _json differs (another version or
    interpreter): a probe object must come out as json writes it."""
    if not _ENCODER:
        encode = None
        try:
            from _json import encode_basestring, make_encoder  # noqa: PLC0415

            candidate = make_encoder(
                {}, _not_json, encode_basestring, None, ": ", ", ", False, False, True
            )
            probe = {"a": [1, -2.5, 1e300, None, True, False, "é\n\"\u2028"], "b": {}, "c": []}
            if "".join(candidate(probe, 0)) == (
                '{"a": [1, -2.5, 1e+300, null, true, false, "é\\n\\"\u2028"], "b": {}, "c": []}'
            ):
                encode = candidate
        except Exception:  # noqa: BLE001 - _json is private: anything unexpected means json
            encode = None
        _ENCODER.append(encode)
    return _ENCODER[0]


def default_lang() -> str:
    """``zh`` when the locale says Chinese, else ``en``."""
    from rocmfix._lang import locale_lang

    return locale_lang()


_LOG_SUFFIXES = (".log", ".txt", ".out", ".err", ".gz", ".xz", ".bz2")


def _text_that_is_a_path(text: list[str]) -> str | None:
    """The one word given as error text when it names a log file rather than an error.

    An existing regular file, directory, FIFO or symlink (devices such as /dev/kfd are
    words of an error message, not logs), or a missing name ending like a log file:
    either way --file's clear messages then apply instead of a search for the name."""
    import os  # noqa: PLC0415
    import stat  # noqa: PLC0415

    if len(text) != 1 or text[0] == "-" or not text[0] or any(c.isspace() for c in text[0]):
        return None
    word = text[0]
    try:
        mode = os.lstat(word).st_mode
    except (OSError, ValueError):
        return word if word.lower().endswith(_LOG_SUFFIXES) and ":" not in word else None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISFIFO(mode) or stat.S_ISLNK(mode):
        return word
    return None


def _explain(args: argparse.Namespace):  # type: ignore[no-untyped-def]  # returns matcher.Explanation
    from rocmfix.extract import open_input, open_log
    from rocmfix.kb.loader import load_kb
    from rocmfix.kb.matcher import matcher_for

    path = _text_that_is_a_path(args.text)
    if path is not None and not args.file:
        # `rocmfix explain train.log` means the file, not the 9 characters of its name
        args.file, args.text = path, []
    sources = [bool(args.file), bool(args.text)]
    if sum(sources) != 1:
        raise InputError(
            "give the error text, '-' for stdin, or --file PATH (exactly one)",
            hint='rocmfix explain "hipErrorNoBinaryForGpu"  or  python train.py 2>&1 | rocmfix explain -',
        )
    kb = load_kb(args.kb)
    if kb.problems:
        from rocmfix.i18n_errors import warning  # noqa: PLC0415

        lang = getattr(args, "lang", None) or default_lang()
        for problem in kb.problems:
            print(warning(problem, lang), file=sys.stderr)
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
    from rocmfix.kb.render import held_back

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
                # fixes left out for a value the input lacks, by number (as `fix --pick` counts)
                "held_back": [
                    {"number": n, "needs": list(names)} for n, names in held_back(m.entry.fixes, m.params)
                ],
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
    if args.file or args.check or args.text == ["-"]:
        import gc  # noqa: PLC0415

        gc.enable()  # the CLI turns it off for a short explain; a long run collects as usual
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
        sys.stdout.write(dumps(to_json(result, args.top, lang, checks)) + "\n")
        return int(code)
    from rocmfix.commands._explain_render import render

    render(result, top=args.top, lang=lang, checks=checks)
    return int(code)
