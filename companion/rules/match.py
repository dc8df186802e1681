"""Cube and match state: money or match play, cube value and owner, score, Crawford, Jacoby, beaver.

Players are 0 and 1, as in GNU Backgammon's Match ID. All rules here are the standard international ones:
- the cube starts centred at 1; either side may double a centred cube, only the owner may redouble, and only
  at the start of his own turn before rolling; a pass loses the cube value before the double;
- beavers (take and at once redouble, keeping the cube) and the Jacoby rule (gammons and backgammons count
  single while the cube has not been turned) apply to money play only;
- in match play the game after a player first reaches one point from victory is the Crawford game, with no
  doubling; later games are post-Crawford and the cube is live again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from companion.errors import IllegalActionError, RulesError

MAX_CUBE = 1 << 15  # what a Match ID can hold; live play rarely passes 64


MAX_MATCH_LENGTH = 64
"""The longest match GNU Backgammon plays, and so the longest any ID or file here carries."""


@dataclass(frozen=True, slots=True)
class MatchState:
    """What stands between games and inside one, apart from the checkers."""

    length: int = 0
    """Points to win the match; 0 for money play."""
    score: tuple[int, int] = (0, 0)
    cube: int = 1
    cube_owner: int | None = None
    """None while the cube is centred."""
    crawford: bool = False
    """This game is the Crawford game (no doubling)."""
    post_crawford: bool = False
    """The Crawford game has been played."""
    crawford_rule: bool = True
    jacoby: bool = False
    """Money play with the Jacoby rule."""
    beaver: bool = False
    """Money play with beavers allowed."""

    def __post_init__(self) -> None:
        if self.length < 0:
            raise RulesError(f"a match is played to a positive number of points (or 0 for money), not {self.length}")
        if any(s < 0 for s in self.score):
            raise RulesError(f"scores cannot be negative: {self.score}")
        if self.cube < 1 or self.cube & (self.cube - 1) or self.cube > MAX_CUBE:
            raise RulesError(f"the cube shows a power of two (1, 2, 4 ... 64 ...), not {self.cube}")
        if self.cube_owner not in (None, 0, 1):
            raise RulesError(f"the cube is centred (None) or owned by player 0 or 1, not {self.cube_owner!r}")
        if self.cube == 1 and self.cube_owner is not None:
            raise RulesError("a cube at 1 is centred; only a turned cube has an owner")
        if self.length == 0 and (self.crawford or self.post_crawford):
            raise RulesError("there is no Crawford game in money play")
        if self.length and (self.jacoby or self.beaver):
            raise RulesError("the Jacoby and beaver rules apply to money play only")
        if self.length == 1 and (self.crawford or self.post_crawford):
            raise RulesError("a 1-point match has no Crawford game")
        if self.crawford and self.cube != 1:
            raise RulesError("the cube cannot be turned in the Crawford game")

    @classmethod
    def money(cls, *, jacoby: bool = True, beaver: bool = True) -> MatchState:
        return cls(length=0, jacoby=jacoby, beaver=beaver)

    @classmethod
    def match_to(cls, length: int, *, crawford_rule: bool = True) -> MatchState:
        if length < 1:
            raise RulesError(f"a match is played to at least 1 point, not {length}")
        return cls(length=length, crawford_rule=crawford_rule)

    @property
    def is_money(self) -> bool:
        return self.length == 0

    def winner(self) -> int | None:
        """The match winner, once a score has reached the length (never in money play)."""
        if self.length:
            for player in (0, 1):
                if self.score[player] >= self.length:
                    return player
        return None

    def is_over(self) -> bool:
        return self.winner() is not None

    def away(self, player: int) -> int:
        """Points the player still needs (match play)."""
        return self.length - self.score[player]

    def may_double(self, player: int) -> bool:
        """Whether `player` may offer the cube now, rules-wise (not whether he should)."""
        if self.is_over() or self.crawford:
            return False
        if self.cube_owner not in (None, player):
            return False
        return self.cube * 2 <= MAX_CUBE

    def why_no_double(self, player: int) -> str | None:
        if self.is_over():
            return "the match is over"
        if self.crawford:
            return "no doubling in the Crawford game"
        if self.cube_owner is not None and self.cube_owner != player:
            return "only the owner of the cube may redouble"
        if self.cube * 2 > MAX_CUBE:
            return f"the cube cannot go past {MAX_CUBE}"
        return None

    def doubled(self, doubler: int) -> MatchState:
        """The state after a double is taken: cube value twice, owned by the taker."""
        reason = self.why_no_double(doubler)
        if reason:
            raise IllegalActionError(reason)
        return replace(self, cube=self.cube * 2, cube_owner=1 - doubler)

    def beavered(self, doubler: int) -> MatchState:
        """The state after a beaver: the taker redoubles at once and keeps the cube (value four times)."""
        if not self.is_money or not self.beaver:
            raise IllegalActionError("beavers are allowed in money play only, when the players agree on them")
        after = self.doubled(doubler)
        if after.cube * 2 > MAX_CUBE:
            raise IllegalActionError(f"the cube cannot go past {MAX_CUBE}")
        return replace(after, cube=after.cube * 2)

    def points_for(self, result: int) -> int:
        """Points a finished game is worth: result (1 single, 2 gammon, 3 backgammon) times the cube; under the
        Jacoby rule an unturned cube makes every win single."""
        if self.jacoby and self.is_money and self.cube == 1:
            result = 1
        return result * self.cube

    def after_game(self, winner: int, points: int) -> MatchState:
        """The state for the next game: the score updated, the cube centred, Crawford decided."""
        score = list(self.score)
        score[winner] += points
        post = self.post_crawford or self.crawford
        crawford = False
        if self.length > 1 and self.crawford_rule and not post:
            crawford = any(s == self.length - 1 for s in score) and all(s < self.length for s in score)
        return replace(
            self,
            score=(score[0], score[1]),
            cube=1,
            cube_owner=None,
            crawford=crawford,
            post_crawford=post and self.length > 1 and self.crawford_rule,
        )
