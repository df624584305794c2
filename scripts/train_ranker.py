#!/usr/bin/env python3
"""Train the learned ranker: a source-checkout wrapper of ``rocmfix kb train``.

    PYTHONPATH=src python scripts/train_ranker.py            # train, write the artifact
    PYTHONPATH=src python scripts/train_ranker.py --compare  # also kNN and leave-rounds-out

The logic lives in ``rocmfix.kb.train`` (see its docstring and docs/ranker.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from rocmfix.kb.train import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
