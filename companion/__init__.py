"""Backgammon Companion: a referee, recorder and training aid that sits beside a real backgammon board."""

__version__ = "0.1.0"
