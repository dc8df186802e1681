"""Judging a recorded match: every roll, play and cube action fed to the referee as the observations a live
match would give (the dice, the board after each play, the dice picked up, the cube commands), so a file is
judged exactly as a game over the board is. This is what `companion check` runs. Findings carry the game, move, line, player and a plain reason.
Scores are checked the way the rules score them (cube value, gammon, backgammon, Jacoby, Crawford) against
the score each next game starts at; the numbers on `Wins N point` lines are not trusted (Galaxy writes the
match total or the points needed there). A resignation's size is not written in Jellyfish files, so it is
read from the next game's score: a resignation worth 1, 2 or 3 times the cube is accepted.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Callable

from companion.errors import NotationError, RulesError
from companion.record.model import Action, ActionKind, GameRecord, MatchRecord
from companion.referee.events import (
    Event,
    GameOver,
    IllegalPlay,
    NeedsAttention,
    PlayMade,
    Refused,
)
from companion.referee.observations import BoardReading, Command, DiceReading, Observation, UserCommand
from companion.referee.referee import Referee
from companion.rules import GameState, MatchState, Phase, Position
from companion.rules.notation import apply_moves, parse_moves


@dataclass(frozen=True, slots=True)
class Finding:
    game: int
    move: int
    line: int
    player: str
    kind: str
    """illegal-play, cube, turn, score, record"""
    reason: str

    def __str__(self) -> str:
        where = f"move {self.move} (line {self.line})" if self.line else f"play {self.move}"  # a journal has no lines
        return f"game {self.game}, {where}, {self.player}: {self.reason}"


@dataclass(frozen=True, slots=True)
class PlayTrace:
    """One replayed play: who, the dice, and the Position IDs before and after (each from the mover's side)."""

    game: int
    player: int
    dice: tuple[int, int]
    before: str
    after: str
    notation: str


@dataclass(frozen=True, slots=True)
class GameOutcome:
    number: int
    winner: int | None
    points: int
    how: str
    plays: int


@dataclass
class AuditReport:
    source: str
    players: tuple[str, str]
    length: int
    findings: list[Finding] = field(default_factory=list)
    notes: list[Finding] = field(default_factory=list)
    """What the record says happened against the rules and was let stand, as the rules allow (an illegal play its
    opponent accepted): no problem of the record, but a reader of it wants to know."""
    games: list[GameOutcome] = field(default_factory=list)
    final_score: tuple[int, int] = (0, 0)
    winner: int | None = None
    trace: list[PlayTrace] | None = None

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def plays(self) -> int:
        return sum(g.plays for g in self.games)

    def to_json(self) -> dict:
        return {
            "file": self.source,
            "players": list(self.players),
            "match_length": self.length,
            "legal": self.ok,
            "plays_checked": self.plays,
            "games": [asdict(g) for g in self.games],
            "final_score": list(self.final_score),
            "winner": None if self.winner is None else self.players[self.winner],
            "findings": [asdict(f) for f in self.findings],
            "notes": [asdict(n) for n in self.notes],
        }


Observer = Callable[[Observation, list[Event]], None]


def audit_match(record: MatchRecord, *, trace: bool = False, observer: Observer | None = None,
                referee: Referee | None = None) -> AuditReport:
    """Replay `record` through the referee, as a live match would be observed. With `trace`, every play is
    kept in `report.trace`; `observer` is told each observation fed to the referee and the events it caused
    (that is how a record becomes a journal). `referee` is a fresh one for the record's match to use."""
    report = AuditReport(record.source, record.players, record.length, trace=[] if trace else None)
    if referee is None:
        if record.length:
            match = MatchState.match_to(record.length, crawford_rule=record.crawford_rule)
        else:
            match = MatchState.money(jacoby=True, beaver=True)
        referee = Referee(match)
    feed = _Feeder(referee, observer)
    for index, game in enumerate(record.games):
        if referee.state.match_over:
            break
        if referee.game.phase is not Phase.OPENING:  # the game before was left unfinished
            feed(UserCommand(Command.NEW_GAME))
        score = referee.match.score
        if record.length and game.score != score:
            report.findings.append(Finding(
                game.number, 0, game.line, "-", "score",
                f"the game starts at {game.score[0]}-{game.score[1]} but the games before it score "
                f"{score[0]}-{score[1]} under the rules",
            ))
        following = record.games[index + 1] if index + 1 < len(record.games) else None
        report.games.append(_GameReplay(feed, record, game, following, report).run())
    report.final_score = referee.match.score
    report.winner = referee.match.winner()
    return report


class _Feeder:
    def __init__(self, referee: Referee, observer: Observer | None) -> None:
        self.referee, self.observer = referee, observer

    def __call__(self, observation: Observation) -> list[Event]:
        events = self.referee.observe(observation)
        if self.observer is not None:
            self.observer(observation, events)
        return events


class _GameReplay:
    """One game of a record, fed to the referee action by action; its events become findings."""

    def __init__(self, feed: _Feeder, record: MatchRecord, game: GameRecord, following: GameRecord | None,
                 report: AuditReport) -> None:
        self.referee, self._feed = feed.referee, feed
        self.record, self.game, self.following, self.report = record, game, following, report
        self.end: GameOver | None = None
        self.plays = 0
        self.stopped = False

    def run(self) -> GameOutcome:
        resign: Action | None = None  # Galaxy's `Losses N point`: its column is not reliable, a `Wins` line is
        for action in self.game.actions:
            if self.stopped:
                break
            kind = action.kind
            if self.end is not None:
                if kind is ActionKind.WIN and action.player != self.end.winner:
                    self.find(action, "record", f"the record says {self.record.players[action.player]} wins, "
                                                f"the rules say {self.record.players[self.end.winner]}")
                elif kind is ActionKind.WIN:
                    self.check_points(action)
                elif kind not in (ActionKind.WIN, ActionKind.UNPLAYED):
                    self.find(action, "record", f"{action.text!r} after the game was over")
                continue
            if kind is ActionKind.ROLL:
                self.roll_and_play(action)
            elif kind is ActionKind.STOOD:
                self.illegal_play_stood(action)
            elif kind is ActionKind.SETUP:
                # legal wherever the rules allow the position, but not reached by the plays: a referee reading the
                # report must know the board was set by hand (a camera misread mended, or a position made up)
                self.report.notes.append(Finding(
                    self.game.number, action.move, action.line, self.record.players[action.player], "position-set",
                    f"the board was set by hand to Position ID {action.position.position_id()} "
                    f"({self.record.players[action.player]} to act)"))
                self.feed(action, UserCommand(Command.SET_POSITION, action.player, position=action.position))
            elif kind is ActionKind.DOUBLE:
                self.feed(action, UserCommand(Command.DOUBLE, action.player))
                if not self.stopped and action.value is not None and action.value != self.referee.match.cube * 2:
                    self.find(action, "cube", f"doubles to {action.value}, but the cube is at {self.referee.match.cube}")
            elif kind in _ANSWERS:
                self.feed(action, UserCommand(_ANSWERS[kind], action.player))
            elif kind is ActionKind.RESIGN:
                resign = action
            elif kind is ActionKind.WIN:  # not over on the board: the other player resigned
                self.resign(action, 1 - action.player, (resign or action).value, "match" in action.text.lower())
                if self.end is not None:
                    self.check_points(action)
        if resign is not None and self.end is None and not self.stopped:
            self.resign(resign, resign.player, resign.value, False)
        if self.end is None:
            return GameOutcome(self.game.number, None, 0, "unfinished", self.plays)
        return GameOutcome(self.game.number, self.end.winner, self.end.points, self.end.kind.name.lower(), self.plays)

    def check_points(self, action: Action) -> None:
        """A result line's points against the rules' (`points_written`)."""
        if action.value is not None and action.value not in self.points_written():
            self.find(action, "record", f"the record says {self.record.players[action.player]} wins "
                                        f"{action.value} point(s), the rules say {self.end.points}")  # type: ignore

    def points_written(self) -> range:
        """What a record may write a finished game's winner won: the points the rules give, or, for the game
        that wins the match, anything from what was needed up to them (programs cap it at what was needed, or at
        the match's length)."""
        assert self.end is not None
        if self.record.length:
            needed = self.record.length - self.game.score[self.end.winner]
            if 0 < needed < self.end.points:
                return range(needed, self.end.points + 1)
        return range(self.end.points, self.end.points + 1)

    def roll_and_play(self, action: Action) -> None:
        d1, d2 = action.dice  # type: ignore[misc]
        referee = self.referee
        if referee.game.phase is Phase.OPENING:
            if d1 == d2:
                self.find(action, "turn", f"the opening roll {d1}{d2} is a double: equal opening dice are thrown again")
                self.stopped = True
                return
            high, low = max(d1, d2), min(d1, d2)
            dice = DiceReading((high, low) if action.player == 0 else (low, high))
        else:
            dice = DiceReading((d1, d2), roller=action.player)
        events = self.feed(action, dice)
        game = referee.game
        cannot_move = any(isinstance(e, PlayMade) for e in events)  # announced at once with the roll
        if self.stopped or (game.phase is not Phase.PLAY and not cannot_move):
            return
        self.plays += 1
        if game.phase is Phase.PLAY:
            after = self.after_position(action, game)
            if after is None:
                return
            self.feed(action, BoardReading.from_position(after, 1 - action.player))
        self.feed(action, DiceReading(()))

    def illegal_play_stood(self, action: Action) -> None:
        """An illegal play its opponent accepted (SGF records carry the board after it)."""
        d1, d2 = action.dice  # type: ignore[misc]
        self.feed(action, DiceReading((d1, d2), roller=action.player))
        if self.stopped or action.position is None:
            return
        self.plays += 1
        self.feed(action, BoardReading.from_position(action.position, 1 - action.player))
        self.feed(action, DiceReading(()))
        self.feed(action, UserCommand(Command.ACCEPT_PLAY, 1 - action.player))

    def after_position(self, action: Action, game: GameState) -> Position | None:
        """The position the record's play reaches, from the opponent's side, legal or not."""
        assert game.dice is not None
        try:
            return game.position.play(action.notation, game.dice).position
        except NotationError:
            pass
        try:
            mine, theirs = apply_moves(game.position, parse_moves(action.notation))
            return Position(theirs, mine)
        except RulesError as exc:
            self.find(action, "illegal-play", f"{action.text}: {exc}")
            self.find(action, "record", f"cannot follow the game after {action.text!r}")
            self.stopped = True
            return None

    def resign(self, action: Action, loser: int, value: int | None, for_match: bool) -> None:
        self.feed(action, UserCommand(Command.RESIGN, loser, value=self.resignation_size(loser, value, for_match)))

    def resignation_size(self, loser: int, value: int | None, for_match: bool) -> int:
        """Jellyfish files do not write what a resignation was worth. Read it from the next game's score; else
        the smallest size that wins the match when the record says it did; else the record's number."""
        match = self.referee.match
        winner, cube = 1 - loser, match.cube
        if self.following is not None:
            gained = self.following.score[winner] - match.score[winner]
            for size in (1, 2, 3):
                if match.points_for(size) == gained:
                    return size
        if for_match and self.record.length:
            return next((k for k in (1, 2, 3) if match.points_for(k) >= match.away(winner)), 3)
        if value and value % cube == 0 and 1 <= value // cube <= 3:
            return value // cube
        return 1

    def feed(self, action: Action, observation: Observation) -> list[Event]:
        events = self._feed(observation)
        for event in events:
            self.note(action, event)
        return events

    def note(self, action: Action, event: Event) -> None:
        if isinstance(event, IllegalPlay) and action.kind is ActionKind.STOOD:
            self.report.notes.append(Finding(self.game.number, action.move, action.line,
                                             self.record.players[action.player], "illegal-play-stood",
                                             f"an illegal play of {action.dice[0]}{action.dice[1]}"
                                             f"{': ' + event.moves if event.moves else ''} stood, its opponent "
                                             f"letting it: {'; '.join(event.reasons)}"))
        elif isinstance(event, IllegalPlay):
            self.find(action, "illegal-play", f"{action.text}: {'; '.join(event.reasons)}")
        elif isinstance(event, Refused):
            self.find(action, "cube" if event.command in _CUBE_COMMANDS else "turn", event.reason)
            self.stopped = True
        elif isinstance(event, NeedsAttention):
            self.find(action, "record", event.what)
            self.stopped = True
        elif isinstance(event, GameOver):
            self.end = event
        elif isinstance(event, PlayMade) and self.report.trace is not None:
            self.report.trace.append(PlayTrace(
                self.game.number, event.player, action.dice, event.before.position_id(),
                event.play.position.swap().position_id(), action.notation))

    def find(self, action: Action, kind: str, reason: str) -> None:
        self.report.findings.append(Finding(self.game.number, action.move, action.line,
                                            self.record.players[action.player], kind, reason))


_ANSWERS = {ActionKind.TAKE: Command.TAKE, ActionKind.DROP: Command.PASS, ActionKind.BEAVER: Command.BEAVER}
_CUBE_COMMANDS = {"double", "take", "pass", "beaver"}


__all__ = ["AuditReport", "Finding", "GameOutcome", "PlayTrace", "audit_match"]
