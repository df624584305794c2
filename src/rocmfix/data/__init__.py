"""Packaged, sourced facts (copies of the project reference research); see rocmfix.facts."""
