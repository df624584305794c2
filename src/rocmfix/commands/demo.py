"""`rocmfix demo`: the interactive session on a bundled broken machine.

Opens the same app on a failed training log and a recorded RX 6700 XT with no
``HSA_OVERRIDE_GFX_VERSION``. Fixes are applied to a throwaway HOME created
here and deleted on exit, so nothing of the user's is ever touched; verify
runs for real only when this machine has a GPU, otherwise the recorded result
is shown, labelled as recorded.
"""

from __future__ import annotations

import argparse
import shutil
import sys

from rocmfix.errors import ExitCode


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--python", metavar="PATH", help="interpreter verify runs when a GPU is present"
    )
    parser.add_argument(
        "--keep-home", action="store_true", help="keep the throwaway HOME and print its path"
    )


def run(args: argparse.Namespace) -> int:
    from rocmfix.commands._target import python_path
    from rocmfix.commands.tui import require_terminal

    require_terminal()
    from rocmfix import demo
    from rocmfix.app import RocmfixApp
    from rocmfix.commands.explain import default_lang
    from rocmfix.screens.session import Session

    home = demo.make_home()
    session = Session(
        python=python_path(args.python),
        snapshot=demo.SNAPSHOT,
        home=home,
        demo=True,
        lang=default_lang(),
    )
    try:
        text = demo.LOG.read_text(encoding="utf-8")
        app = RocmfixApp(session, text=text, name="train.log (demo)")
        code = app.run()
        if code is None:
            code = app.return_code  # 1 after a crash Textual has reported
    finally:
        if args.keep_home:
            print(f"rocmfix: the demo HOME is kept at {home}", file=sys.stderr)
        else:
            shutil.rmtree(home, ignore_errors=True)
    return int(code if code is not None else ExitCode.OK)
