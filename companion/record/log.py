"""The match log: the referee's events, batch by batch, folded into a `MatchRecord` that the writers export.

Events arrive in batches, one per observation (what `Referee.observe` returned). An `Undone` takes back
the last batch that changed anything, exactly as the referee steps back through its history, so the log
and the referee never disagree. A play changed before its turn ended replaces the one announced.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.record.model import Action, ActionKind, GameRecord, MatchRecord
from companion.referee.events import (
    Beavered,
    DoubleOffered,
    Event,
    GameOver,
    GameStarted,
    Passed,
    PlayMade,
    PlayStood,
    PlayWithdrawn,
    PositionSet,
    Resigned,
    Taken,
    Undone,
)
from companion.rules import Play
from companion.rules.game import EndKind


@dataclass
class MatchLog:
    players: tuple[str, str] = ("Player 0", "Player 1")
    length: int = 0
    metadata: dict[str, str] = field(default_factory=dict)
    _first: list[Event] = field(default_factory=list)
    _batches: list[list[Event]] = field(default_factory=list)

    def add(self, events: list[Event]) -> None:
        """The events of one observation, as `Referee.observe` returned them."""
        if not self._first and not self._batches and events and isinstance(events[0], GameStarted):
            # the referee announces the first game outside its history: undo never takes it back
            self._first = [events[0]]
            events = events[1:]
        undone = next((e for e in events if isinstance(e, Undone)), None)
        if undone is not None:
            # the batch the referee took back: the last with its events (a refusal that changed nothing is not in
            # the referee's history, so `u` after a refused key takes back the decision before it)
            taken = [i for i, batch in enumerate(self._batches) if tuple(batch) == undone.events]
            if taken or self._batches:
                self._batches.pop(taken[-1] if taken else -1)
        elif events:
            self._batches.append(list(events))

    @property
    def events(self) -> list[Event]:
        """The events that stand (undone ones left out)."""
        return self._first + [e for batch in self._batches for e in batch]

    def record(self) -> MatchRecord:
        games: list[GameRecord] = []
        actions: list[Action] = []
        current: GameStarted | None = None

        def close() -> None:
            if current is not None and actions:  # a game not begun yet is not part of the record
                games.append(GameRecord(current.number, current.score, tuple(actions)))

        def plays() -> int:
            # an action's `move` is the number in the game of the play it comes with, that play's or the next one's
            # for a cube action or a board set by hand, the last one's for the game's end (a journal has no lines)
            return sum(a.kind in (ActionKind.ROLL, ActionKind.STOOD) for a in actions) + 1

        for event in self.events:
            if isinstance(event, GameStarted):
                close()
                if games and games[-1].number == event.number:  # a game begun again (new-game command)
                    games.pop()
                current, actions = event, []
            elif isinstance(event, PlayMade):
                if event.revised:
                    _drop_last_play(actions, event.player)
                roll = event.play.roll
                actions.append(Action(event.player, ActionKind.ROLL, dice=(roll.die1, roll.die2),
                                      notation=die_by_die(event.play), move=plays()))
            elif isinstance(event, PlayWithdrawn):
                _drop_last_play(actions, event.player)
            elif isinstance(event, PlayStood):
                moves = event.moves
                played = f"{moves}: " if moves else ""  # the record says what was played, in words
                actions.append(Action(event.player, ActionKind.STOOD, dice=(event.roll.die1, event.roll.die2),
                                      position=event.after.swap(), text=played + "; ".join(event.reasons),
                                      move=plays()))
            elif isinstance(event, PositionSet):
                actions.append(Action(event.player, ActionKind.SETUP, position=event.position, move=plays()))
            elif isinstance(event, DoubleOffered):
                actions.append(Action(event.player, ActionKind.DOUBLE, value=event.value, move=plays()))
            elif isinstance(event, Taken):
                actions.append(Action(event.player, ActionKind.TAKE, move=plays()))
            elif isinstance(event, Beavered):
                actions.append(Action(event.player, ActionKind.BEAVER, value=event.value, move=plays()))
            elif isinstance(event, Passed):
                actions.append(Action(event.player, ActionKind.DROP, move=plays()))
            elif isinstance(event, Resigned):
                actions.append(Action(event.player, ActionKind.RESIGN, value=event.value, move=plays()))
            elif isinstance(event, GameOver):
                text = "resigned" if event.kind is EndKind.RESIGNED else event.kind.name.lower()
                actions.append(Action(event.winner, ActionKind.WIN, value=event.points, text=text,
                                      move=max(1, plays() - 1)))
        close()
        metadata = dict(self.metadata)
        return MatchRecord(self.length, self.players, tuple(games), metadata)


def die_by_die(play: Play) -> str:
    """A play as GNU Backgammon writes it in `.mat` files: one move per die, in the order played, the bar
    as 25 and off as 0 (`11: 24/23 23/22 22/21 21/20`); every importer reads this form."""
    return " ".join(f"{m.source}/{m.dest}{'*' if m.hit else ''}" for m in play.moves)


def _drop_last_play(actions: list[Action], player: int) -> None:
    for i in range(len(actions) - 1, -1, -1):
        if actions[i].kind is ActionKind.ROLL and actions[i].player == player:
            del actions[i]
            return


__all__ = ["MatchLog", "die_by_die"]
