"""The hostile suite's ``machine`` fixture is tests/conftest.py's (one fake machine, tests/_fakes.py)."""
