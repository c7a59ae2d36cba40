"""Exact oracles for the languages and functions of the separations papers."""
