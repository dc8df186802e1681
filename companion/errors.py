"""The project's own exception types: errors a user can cause, with a message that says what to do.

Every layer may import this module (it imports nothing); the app and the CLI catch `CompanionError`
and show its message instead of a traceback.
"""


class CompanionError(Exception):
    """Base of every error a user can cause (bad file, bad ID, missing camera, unplugged dice cup)."""


class RulesError(CompanionError, ValueError):
    """Something that the rules of backgammon do not allow, or that cannot be a backgammon state."""


class InvalidPositionError(RulesError):
    """A position that cannot occur: wrong checker counts, a point held by both sides, negative counts."""


class InvalidIdError(RulesError):
    """A Position ID, Match ID or XGID that is malformed or describes an impossible state."""


class NotationError(RulesError):
    """Play notation that cannot be read, or that names no legal play for the roll."""


class IllegalActionError(RulesError):
    """A game action (roll, play, double, take, pass, beaver, resign) that is not allowed now."""


class MatchFileError(CompanionError):
    """A match file that cannot be read or parsed (the message names the file and the line)."""


class ClubError(CompanionError):
    """A club setting or message that cannot be used: a bad URL or name, a missing broker or database, a message
    the server refuses."""
