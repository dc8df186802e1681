"""One game's flow as an immutable state machine: opening roll, turns, cube actions, the end and its score.

Each action returns a new `GameState` or raises `IllegalActionError` with a reason a referee can read out.
The checker position is held from the side of `turn`, the player to act.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from companion.errors import IllegalActionError, InvalidIdError, RulesError
from companion.rules.dice import OpeningRoll, Roll
from companion.rules.ids import MatchKey, decode_match_id, encode_match_id
from companion.rules.match import MatchState
from companion.rules.play import Play
from companion.rules.position import GameResult, Position
from companion.rules.xgid import XgidState, format_xgid, parse_xgid


class Phase(Enum):
    OPENING = "opening"
    """Waiting for the opening roll (one die each)."""
    ROLL = "roll"
    """`turn` may double, then rolls."""
    DOUBLED = "doubled"
    """`turn` has been offered the cube: take, pass or (money) beaver."""
    PLAY = "play"
    """`turn` has rolled and must play."""
    OVER = "over"

    @property
    def doing(self) -> str:
        """What the game waits for, as a refusal says it ('no dice to play: the opening roll is due')."""
        return {Phase.OPENING: "the opening roll is due", Phase.ROLL: "a roll is due",
                Phase.DOUBLED: "a double waits for its answer", Phase.PLAY: "a roll waits for its play",
                Phase.OVER: "the game is over"}[self]


class EndKind(Enum):
    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3
    PASSED = 4
    """A double was passed."""
    RESIGNED = 5


@dataclass(frozen=True, slots=True)
class GameEnd:
    winner: int
    points: int
    kind: EndKind


@dataclass(frozen=True, slots=True)
class GameState:
    match: MatchState
    position: Position
    """From the side of `turn`."""
    phase: Phase = Phase.OPENING
    turn: int = 0
    dice: Roll | None = None
    end: GameEnd | None = None

    @classmethod
    def new(cls, match: MatchState | None = None, position: Position | None = None) -> GameState:
        return cls(match or MatchState(), position or Position.start())

    # -- actions ------------------------------------------------------------------------------------

    def opening_roll(self, die0: int, die1: int) -> GameState:
        """Player 0 threw `die0`, player 1 `die1`. A tie leaves the state unchanged: both roll again."""
        self._expect(Phase.OPENING, "the opening roll is over")
        opening = OpeningRoll(die0, die1)
        if opening.is_tie:
            return self
        winner = opening.winner
        position = self.position if winner == self.turn else self.position.swap()
        return replace(self, phase=Phase.PLAY, turn=winner, dice=opening.roll(), position=position)

    def roll(self, die1: int, die2: int) -> GameState:
        self._expect(Phase.ROLL, "a roll is not due now")
        return replace(self, phase=Phase.PLAY, dice=Roll(die1, die2))

    def legal_plays(self) -> list[Play]:
        self._expect(Phase.PLAY, "no dice to play")
        assert self.dice is not None
        return self.position.legal_plays(self.dice)

    def play(self, play: Play | str) -> GameState:
        """Make a legal play (a `Play` from `legal_plays`, or its notation)."""
        self._expect(Phase.PLAY, "no dice to play")
        assert self.dice is not None
        if isinstance(play, str):
            play = self.position.play(play, self.dice)
        elif play not in self.position.legal_plays(self.dice):
            raise IllegalActionError(f"{play.notation or 'no move'} is not a legal play of {self.dice}")
        return self._after_play(play.position)

    def play_unchecked(self, after: Position) -> GameState:
        """Move on from a play that the rules do not allow but that stood (the correction window closed)."""
        self._expect(Phase.PLAY, "no dice to play")
        return self._after_play(after)

    def _after_play(self, after: Position) -> GameState:
        result = after.winner_result()
        if result is not None:
            # `after` is seen from the opponent: the mover is its `opponent` side
            points = self.match.points_for(int(result))
            kind = EndKind(int(result))
            return replace(self, position=after.swap(), phase=Phase.OVER, dice=None,
                           end=GameEnd(self.turn, points, kind))
        return replace(self, position=after, phase=Phase.ROLL, turn=1 - self.turn, dice=None)

    def may_double(self) -> bool:
        return self.phase is Phase.ROLL and self.match.may_double(self.turn)

    def double(self) -> GameState:
        self._expect(Phase.ROLL, "the cube is offered before rolling, at the start of one's own turn")
        reason = self.match.why_no_double(self.turn)
        if reason:
            raise IllegalActionError(reason)
        return replace(self, phase=Phase.DOUBLED, turn=1 - self.turn, position=self.position.swap())

    def take(self) -> GameState:
        self._expect(Phase.DOUBLED, "no double to take")
        doubler = 1 - self.turn
        return replace(self, match=self.match.doubled(doubler), phase=Phase.ROLL, turn=doubler,
                       position=self.position.swap())

    def beaver(self) -> GameState:
        self._expect(Phase.DOUBLED, "no double to beaver")
        doubler = 1 - self.turn
        return replace(self, match=self.match.beavered(doubler), phase=Phase.ROLL, turn=doubler,
                       position=self.position.swap())

    def pass_double(self) -> GameState:
        """The doubled player passes: the doubler wins what the cube showed before the double."""
        self._expect(Phase.DOUBLED, "no double to pass")
        doubler = 1 - self.turn
        return replace(self, phase=Phase.OVER, end=GameEnd(doubler, self.match.cube, EndKind.PASSED))

    def resign(self, player: int, result: int = 1) -> GameState:
        """`player` concedes a single (1), gammon (2) or backgammon (3) game, and the opponent accepts."""
        if self.phase is Phase.OVER:
            raise IllegalActionError("the game is already over")
        if result not in (1, 2, 3):
            raise IllegalActionError("a resignation is of a single, gammon or backgammon game (1, 2 or 3)")
        points = self.match.points_for(result)
        return replace(self, phase=Phase.OVER, end=GameEnd(1 - player, points, EndKind.RESIGNED))

    def next_match_state(self) -> MatchState:
        """The match state for the next game, once this one is over."""
        self._expect(Phase.OVER, "the game is not over")
        assert self.end is not None
        return self.match.after_game(self.end.winner, self.end.points)

    # -- formats ------------------------------------------------------------------------------------

    @property
    def on_roll(self) -> int:
        """The player who rolls (or rolled) this turn: the doubler while a double waits for an answer."""
        return 1 - self.turn if self.phase is Phase.DOUBLED else self.turn

    def position_id(self) -> str:
        return self.position_of(self.on_roll).position_id()

    def match_key(self) -> MatchKey:
        m = self.match
        state = {Phase.OPENING: 0, Phase.OVER: 2}.get(self.phase, 1)
        if self.end is not None:
            state = {EndKind.PASSED: 4, EndKind.RESIGNED: 3}.get(self.end.kind, 2)
        return MatchKey(
            cube=m.cube,
            cube_owner=m.cube_owner,
            dice_owner=self.on_roll,
            crawford=m.crawford,
            game_state=state,
            turn=self.turn,
            doubled=self.phase is Phase.DOUBLED,
            dice=(self.dice.die1, self.dice.die2) if self.dice else (0, 0),
            match_length=m.length,
            score=m.score,
            jacoby=m.jacoby,
        )

    def match_id(self) -> str:
        return encode_match_id(self.match_key())

    def gnubg_id(self) -> str:
        """`PositionID:MatchID`, as GNU Backgammon shows and accepts it."""
        return f"{self.position_id()}:{self.match_id()}"

    def xgid(self) -> str:
        return format_xgid(
            XgidState(self.position_of(self.on_roll), self.match, self.on_roll, self.dice,
                      self.phase is Phase.DOUBLED)
        )

    @classmethod
    def from_xgid(cls, xgid: str) -> GameState:
        x = parse_xgid(xgid)
        if x.doubled:
            return cls(x.match, x.position.swap(), Phase.DOUBLED, 1 - x.turn)
        return cls(x.match, x.position, Phase.PLAY if x.dice else Phase.ROLL, x.turn, x.dice)

    @classmethod
    def from_gnubg_id(cls, position_id: str, match_id: str | None = None, *, beaver: bool = False) -> GameState:
        """From a Position ID and (optionally) a Match ID; without one, money play with the player on roll 0."""
        position = Position.from_position_id(position_id)
        if match_id is None:
            return cls(MatchState(), position, Phase.ROLL, 0)
        k = decode_match_id(match_id)
        try:
            match = MatchState(
                length=k.match_length, score=k.score, cube=k.cube, cube_owner=k.cube_owner,
                crawford=k.crawford,
                post_crawford=k.match_length > 1 and not k.crawford and k.match_length - 1 in k.score,
                jacoby=k.jacoby and not k.match_length, beaver=beaver and not k.match_length,
            )
        except RulesError as exc:
            raise InvalidIdError(f"Match ID {match_id!r} describes an impossible state: {exc}") from exc
        dice = Roll(*k.dice) if k.dice != (0, 0) else None
        if k.doubled:
            return cls(match, position.swap(), Phase.DOUBLED, 1 - k.dice_owner)
        return cls(match, position, Phase.PLAY if dice else Phase.ROLL, k.dice_owner, dice)

    # -- views --------------------------------------------------------------------------------------

    def position_of(self, player: int) -> Position:
        """The checkers seen from `player`'s side."""
        return self.position if player == self.turn else self.position.swap()

    def _expect(self, phase: Phase, why: str) -> None:
        if self.phase is not phase:
            raise IllegalActionError(f"{why}: {self.phase.doing}")


__all__ = ["EndKind", "GameEnd", "GameResult", "GameState", "Phase"]
