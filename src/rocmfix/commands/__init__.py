"""Subcommands of the rocmfix CLI; each module defines configure(parser) and run(args)."""
