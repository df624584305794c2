"""Command-line entry point: a lazy dispatcher over `rocmfix.commands.*`.

Each subcommand lives in its own module exposing ``configure(parser)`` and
``run(args) -> int``. Only the module of the command being run is imported, so
`rocmfix explain` never pays for textual, torch or the doctor's probes.
With no subcommand (or a path / ``-``) rocmfix opens the interactive session.
A plain ``rocmfix explain`` command line skips argparse altogether
(``rocmfix.commands.explain.quick_args``): with gettext, locale, re and enum it
is a good part of a one-line explain's start-up.
"""

from __future__ import annotations

import gc
import os
import sys

from rocmfix import __version__
from rocmfix.errors import ExitCode, RocmfixError, colour_wanted

TYPE_CHECKING = False  # typing, argparse and collections are not imported at run time
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

# name -> (module, one-line help). Order is the order shown in --help.
COMMANDS: dict[str, tuple[str, str]] = {
    "explain": ("rocmfix.commands.explain", "name the root cause of an error message or log"),
    "doctor": ("rocmfix.commands.doctor", "check this machine and confirm or rule out each cause"),
    "verify": (
        "rocmfix.commands.verify",
        "prove the GPU works: staged matmul test in a subprocess",
    ),
    "fix": ("rocmfix.commands.fix", "preview (default) or apply a guided, reversible fix"),
    "install-plan": (
        "rocmfix.commands.install_plan",
        "which ROCm wheel index and torch fit this GPU",
    ),
    "undo": ("rocmfix.commands.undo", "undo an applied fix byte for byte"),
    "history": ("rocmfix.commands.history", "list applied fixes from the journal"),
    "collect": ("rocmfix.commands.collect", "record a shareable snapshot of this machine"),
    "report": ("rocmfix.commands.report", "write a redacted, paste-ready bug report"),
    "fleet": ("rocmfix.commands.fleet", "summarize doctor results from many machines"),
    "kb": ("rocmfix.commands.kb", "validate, list, show and evaluate the knowledge base"),
    "demo": ("rocmfix.commands.demo", "open the interactive session on a bundled broken machine"),
    "tui": ("rocmfix.commands.tui", "open the interactive session (the default)"),
}


TOP_EN = {
    "description": "Explain, diagnose, fix and verify PyTorch-on-ROCm failures on AMD GPUs.",
    "commands": "commands:",
    "more": "Run `rocmfix COMMAND --help` for a command's options.",
    "path": "log file to open in the interactive session ('-' for stdin)",
    "python": "interpreter whose torch the session checks and verifies",
    "snapshot": "the doctor reads this recorded machine instead",
    "version": "show program's version number and exit",
}


_PARSE = {"json_error": False, "lang": "en"}
"""How a usage error is worded this run: set by :func:`_main` before argparse runs."""

_CLASSES: dict[str, type] = {}


def _classes() -> dict[str, type]:
    """argparse's parser and formatters as rocmfix shapes them, made once argparse is
    loaded (a plain one-line explain never imports argparse).

    * ``parser``: a usage error under ``--json`` also leaves one ``rocmfix.error/1`` object on
      stdout, as a refused command does (usage and message still go to stderr, exit 2);
      subparsers (``kb show``) are made of this class too.
    * ``formatter``: sized by :func:`_columns`; Chinese help wrapped by display width.
    * ``raw``: a command that lays out its own description/epilog, options wrapped as above.
    """
    if _CLASSES:
        return _CLASSES
    import argparse  # noqa: PLC0415

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str):  # type: ignore[override]  # NoReturn
            if _PARSE["json_error"]:
                from rocmfix.i18n_argparse import english  # noqa: PLC0415

                _print_json_error(RocmfixError(english(message)), code="usage")
            if _PARSE["lang"] == "zh":
                # argparse words its own part ("参数 --timeout："); an option's type check
                # (``ArgumentTypeError``) brings English text, worded here like any refusal
                from rocmfix.i18n_errors import MESSAGES, translate

                head, sep, tail = message.partition("：")
                if sep and head.startswith("参数 "):
                    message = head + sep + translate(tail, MESSAGES, "zh")
            super().error(message)

    class _Formatter(argparse.HelpFormatter):
        def __init__(
            self,
            prog: str,
            indent_increment: int = 2,
            max_help_position: int = 24,
            width: int | None = None,
        ) -> None:
            super().__init__(
                prog,
                indent_increment,
                max_help_position,
                _columns() - 2 if width is None else width,
            )

        def _split_lines(self, text: str, width: int) -> list[str]:
            # argparse wraps by len(): a Chinese character takes two columns and breaks
            # anywhere, so Chinese help is wrapped by display width instead
            if any(ch >= "\u2e80" for ch in text):
                from rocmfix.i18n_argparse import wrap_wide

                return wrap_wide(" ".join(text.split()), width)
            return super()._split_lines(text, width)

    class _RawFormatter(argparse.RawDescriptionHelpFormatter, _Formatter):
        pass

    _CLASSES.update(parser=_Parser, formatter=_Formatter, raw=_RawFormatter)
    return _CLASSES


def _command_help(name: str, lang: str) -> str:
    if lang == "zh":
        from rocmfix.i18n_argparse import COMMANDS_ZH

        return COMMANDS_ZH.get(name, COMMANDS[name][1])
    return COMMANDS[name][1]


def _top_parser(lang: str = "en") -> argparse.ArgumentParser:
    import argparse  # noqa: PLC0415

    if lang == "zh":
        from rocmfix.i18n_argparse import TOP_ZH as words
    else:
        words = TOP_EN
    epilog = words["commands"] + "\n"
    epilog += "\n".join(f"  {n:<12} {_command_help(n, lang)}" for n in COMMANDS)
    epilog += "\n\n" + words["more"]
    parser = _classes()["parser"](
        prog="rocmfix",
        description=words["description"],
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version", action="version", version=f"rocmfix {__version__}", help=words["version"]
    )
    parser.add_argument("path", nargs="?", help=words["path"])
    parser.add_argument("--python", metavar="PATH", help=words["python"])
    parser.add_argument("--snapshot", metavar="DIR", help=words["snapshot"])
    return parser


def _columns() -> int:
    """``shutil.get_terminal_size().columns``, without importing shutil (and with it
    bz2, lzma and fnmatch) on every start: argparse sizes its formatter this way."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
        columns = columns or 80
    return columns


def _command_parser(name: str, module: object, lang: str = "en") -> argparse.ArgumentParser:
    import argparse  # noqa: PLC0415

    classes = _classes()
    parser = classes["parser"](
        prog=f"rocmfix {name}",
        description=_command_help(name, lang),
        formatter_class=classes["formatter"],
    )
    module.configure(parser)  # type: ignore[attr-defined]  # every command module defines it
    if parser.formatter_class is argparse.RawDescriptionHelpFormatter:
        parser.formatter_class = classes["raw"]
    for action in parser._actions:  # noqa: SLF001 - kb's and fleet's actions wrap the same way
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            for sub_parser in action.choices.values():
                if sub_parser.formatter_class is argparse.HelpFormatter:
                    sub_parser.formatter_class = classes["formatter"]
    if lang == "zh":
        from rocmfix.i18n_argparse import localize

        localize(parser)
    return parser


def _print_error(err: RocmfixError, lang: str = "en") -> None:
    from rocmfix.i18n_errors import HINTS, LABELS, MESSAGES, translate
    from rocmfix.termtext import plain  # a message may name a file: foreign text

    color = colour_wanted(sys.stderr)
    red, dim, off = ("\033[31m", "\033[2m", "\033[0m") if color else ("", "", "")
    label, hint = LABELS.get(lang, LABELS["en"])
    print(f"{red}{label}{plain(translate(err.message, MESSAGES, lang))}{off}", file=sys.stderr)
    if err.hint:
        print(f"{dim}{hint}{plain(translate(err.hint, HINTS, lang))}{off}", file=sys.stderr)


_ERROR_CODES = {
    "InputError": "input",
    "KbError": "kb",
    "ProbeError": "probe",
    "ActionError": "action",
}


def _print_json_error(err: RocmfixError, code: str | None = None) -> None:
    """Under --json a refused command still leaves one JSON object on stdout, so a script
    reading stdout gets the reason and not an empty string (the message also goes to stderr).

    The object's ``error`` and ``hint`` are English in every locale and ``code`` names the
    kind of refusal (``usage``, ``input``, ``kb``, ``probe``, ``action``, ``error``), so a
    script reads the same object anywhere; the lines on stderr are in the user's language.
    """
    import json

    from rocmfix.termtext import plain

    record = {
        "schema": "rocmfix.error/1",
        "error": plain(err.message),
        "hint": err.hint and plain(err.hint) or None,
    }
    kinds = (_ERROR_CODES.get(cls.__name__) for cls in type(err).__mro__)
    record["code"] = code or next((k for k in kinds if k), "error")
    record["exit"] = int(err.exit_code)
    print(json.dumps(record, ensure_ascii=False))


def _import_command(name: str) -> object:
    try:
        __import__(COMMANDS[name][0])  # importlib.import_module, without importlib's warnings
        return sys.modules[COMMANDS[name][0]]
    except ModuleNotFoundError as err:
        if err.name == COMMANDS[name][0]:
            raise RocmfixError(f"`rocmfix {name}` is not available in this build") from None
        raise


def main(argv: Sequence[str] | None = None) -> int:
    """Run rocmfix with ``argv`` (default ``sys.argv[1:]``) and return the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    name = args_list[0] if args_list and args_list[0] in COMMANDS else None
    collecting = gc.isenabled()
    if name == "explain":
        # One short-lived command: the cyclic collector would only walk the modules, the
        # KB and the ranker it just loaded, some twenty times (~3 ms of a one-line explain).
        # Inputs that take longer than a start-up (files, stdin, --check) turn it back on.
        gc.disable()
    try:
        return _main(name, args_list)
    finally:
        (gc.enable if collecting else gc.disable)()  # as the caller had it (tests call main)


class _Terminated(BaseException):
    """SIGTERM or SIGHUP arrived (``timeout``, srun's time limit, a closed ssh session)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _on_termination(signum: int, frame: object) -> None:
    import _signal  # noqa: PLC0415 - already loaded: the interpreter's own

    for sig in (_signal.SIGTERM, _signal.SIGHUP):
        _signal.signal(sig, _signal.SIG_IGN)  # a second one must not cut the cleanup short
    raise _Terminated(signum)


def _catch_termination() -> None:
    """Turn SIGTERM and SIGHUP into an exception, so children are ended on the way out.

    Without it the default action kills rocmfix at once, and the probe or GPU child,
    in a session of its own, runs on. A signal the caller ignores (``nohup``) stays ignored.
    """
    try:
        import _signal  # noqa: PLC0415 - the C module: no enum import at start-up
    except ImportError:
        return
    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(_signal, name, None)
        if sig is not None and _signal.getsignal(sig) == _signal.SIG_DFL:
            _signal.signal(sig, _on_termination)


_ONE_SHOT: list[bool] = []
"""Set when a plain explain ran (see :func:`entry`)."""


def entry() -> int:
    """The ``rocmfix`` command (console script, ``python -m rocmfix``): :func:`main`, then exit.

    After a plain ``explain`` (no thread, no child process, its output written) the
    interpreter's teardown, which frees one by one every object the modules, the KB and
    the ranker made (~4 ms of a one-line explain), is skipped: exit handlers run and
    stdout and stderr are flushed first, as a normal exit does.
    """
    _catch_termination()
    signalled = False
    try:
        code = main()
    except _Terminated as stop:
        # SIGTERM / SIGHUP: the finally blocks on the way out ended the verify child;
        # exit as a shell expects from a process killed by that signal.
        code, signalled = 128 + stop.signum, True
    running = sys.modules.get("rocmfix.children")
    if (signalled or code == ExitCode.INTERRUPTED) and running is not None:
        # Ctrl-C or a signal: probes still wait in worker threads, which the exit would
        # join; end their children (in sessions of their own, so no signal reached them).
        running.stop_all()
    if _ONE_SHOT and "threading" not in sys.modules and "subprocess" not in sys.modules:
        import atexit  # noqa: PLC0415

        run_exitfuncs = getattr(atexit, "_run_exitfuncs", None)  # private: CPython's
        if run_exitfuncs is None:
            return code  # another interpreter: the usual exit, teardown and all
        run_exitfuncs()  # what interpreter shutdown runs first
        try:
            sys.stdout.flush()
        except BrokenPipeError:  # `| head` closed the pipe: as main() treats it
            code = int(ExitCode.OK)
        except (OSError, ValueError):
            return code  # let the interpreter report it as usual
        try:
            sys.stderr.flush()
        except (OSError, ValueError):
            return code
        os._exit(code)
    return code


def _main(name: str | None, args_list: list[str]) -> int:
    try:
        if name == "explain":
            module = _import_command(name)
            args = module.quick_args(args_list[1:])  # type: ignore[attr-defined]
            if args is not None:
                code = int(module.run(args))  # type: ignore[attr-defined]
                _ONE_SHOT.append(True)
                return code
        from rocmfix._lang import lang_of
        from rocmfix.i18n_argparse import chinese

        lang = lang_of(args_list)
        _PARSE["json_error"], _PARSE["lang"] = "--json" in args_list, lang
        if name is None:
            with chinese(lang):
                top = _top_parser(lang).parse_args(args_list)
            name, args_list = "tui", ([top.path] if top.path else [])
            for option in ("python", "snapshot"):
                if getattr(top, option):
                    args_list += [f"--{option}", getattr(top, option)]
        else:
            args_list = args_list[1:]
        module = _import_command(name)
        with chinese(lang):
            args = _command_parser(name, module, lang).parse_args(args_list)
        return int(module.run(args))
    except RocmfixError as err:
        from rocmfix.i18n_errors import lang_of

        _print_error(err, lang_of(args_list))
        if err.exit_code == ExitCode.USAGE and "--json" in args_list:
            _print_json_error(err)
        return int(err.exit_code)
    except KeyboardInterrupt:
        from rocmfix.i18n_errors import lang_of

        _print_error(RocmfixError("interrupted"), lang_of(args_list))
        return int(ExitCode.INTERRUPTED)
    except BrokenPipeError:
        # `rocmfix explain ... | head` closed the pipe: not an error worth a traceback.
        import contextlib  # noqa: PLC0415

        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keeps interpreter shutdown quiet
        return int(ExitCode.OK)
