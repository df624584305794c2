"""`python -m rocmfix` entry point."""

from rocmfix.cli import main

raise SystemExit(main())
