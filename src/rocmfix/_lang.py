"""The session language from the locale, without the message tables.

``rocmfix.i18n_errors`` compiles some forty message patterns at import; a
command that only needs to know the language (every ``explain``) asks here.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


def locale_lang() -> str:
    """``zh`` when the locale says Chinese, else ``en`` (the first variable set decides)."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = os.environ.get(var)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def lang_of(argv: Sequence[str]) -> str:
    """``zh`` for ``--lang zh`` (or ``--lang=zh``) on the command line, else the locale's."""
    for i, word in enumerate(argv):
        if word == "--lang" and i + 1 < len(argv):
            return "zh" if argv[i + 1].startswith("zh") else "en"
        if word.startswith("--lang="):
            return "zh" if word.split("=", 1)[1].startswith("zh") else "en"
    return locale_lang()
