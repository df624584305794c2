"""Dump `explain --json` objects for every test text, to prove a speed change changes no answer.

Run once with the old tree and once with the new one, then compare the files byte
for byte (the texts: tests/data/**/*.jsonl, the KB's symptoms and samples, the
benchmark line, and prefixes of each at 40/120/300/399 characters, in en and zh):

    git archive BASE src kb | tar -x -C /tmp/base
    PYTHONPATH=/tmp/base/src python benchmarks/explain_same_answers.py /tmp/base.jsonl
    PYTHONPATH=src python benchmarks/explain_same_answers.py /tmp/new.jsonl
    cmp /tmp/base.jsonl /tmp/new.jsonl

With ``--engine`` every text goes through the large-input path instead (the
multi-pattern engine over a stream: Hyperscan where installed, else the ``re``
fallback; ``ROCMFIX_ENGINE=re`` forces it), so a change to the engines is compared too.

Comparing outputs is not tuning: nothing here is read for its content. The JSON is
written as `explain --json` writes it (``rocmfix.commands.explain.dumps`` where the
tree has it, ``json.dumps`` before), so the comparison covers the writer too.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

from rocmfix.commands import explain as _explain_cmd
from rocmfix.commands.explain import to_json
from rocmfix.kb.loader import load_kb
from rocmfix.kb.matcher import matcher_for

ROOT = Path(__file__).resolve().parents[1]
LINE = "RuntimeError: HIP error: hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"


def texts() -> list[str]:
    out = []
    for f in sorted((ROOT / "tests" / "data").glob("**/*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if isinstance(d, dict) and isinstance(d.get("text"), str):
                out.append(d["text"])
    for e in load_kb([]).entries:
        out.extend(e.symptoms)
        out.extend(x if isinstance(x, str) else str(x) for x in getattr(e, "samples", ()) or ())
    out.append(LINE)
    return out + [t[:cut] for t in out for cut in (40, 120, 300, 399)]


def main() -> int:
    kb = load_kb([])
    m = matcher_for(kb)
    all_texts = texts()
    dumps = getattr(_explain_cmd, "dumps", lambda obj: json.dumps(obj, ensure_ascii=False))
    args = [a for a in sys.argv[1:] if a != "--engine"]
    engine = "--engine" in sys.argv[1:]
    with open(args[0], "w", encoding="utf-8") as fh:
        for t in all_texts:
            if engine:
                r = m.explain_stream(io.BytesIO(t.encode("utf-8", errors="replace")))
            else:
                r = m.explain_text(t)
            for lang in ("en", "zh"):
                fh.write(dumps(to_json(r, 3, lang)) + "\n")
    print(f"{len(all_texts)} texts written to {args[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
