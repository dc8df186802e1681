"""The match clock, as tournaments run it: a delay per move, then a reserve per player that runs down.

The delay is used first on every move and what is left of it is not kept; only time past the delay comes off
the player's reserve. A value: every change returns a new clock, and time is always passed in (`now`, in
seconds on any steady clock), so the clock is tested without waiting and journalled as plain numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True, slots=True)
class MatchClock:
    delay: float
    reserve: float
    """Each player's reserve at the start of the match, in seconds."""
    used: tuple[float, float] = (0.0, 0.0)
    """Reserve used by each player on moves already finished."""
    running: int | None = None
    """Whose clock runs (the player to act); None when it is stopped."""
    since: float = 0.0

    @classmethod
    def for_match(cls, length: int, delay: float = 12.0, per_point: float = 120.0) -> MatchClock:
        """12 s a move and 2 minutes a point of the match, as many tournaments play (money: 10 points' worth)."""
        return cls(delay, per_point * (length or 10))

    def start(self, player: int, now: float) -> MatchClock:
        """The clock runs for `player` (the previous player's move is charged first)."""
        if self.running == player:
            return self
        return replace(self.stop(now), running=player, since=now)

    def stop(self, now: float) -> MatchClock:
        """The move is finished (the dice picked up) or the clock is paused: its time past the delay is charged."""
        if self.running is None:
            return self
        used = list(self.used)
        used[self.running] += max(0.0, now - self.since - self.delay)
        return replace(self, used=(used[0], used[1]), running=None)

    def used_now(self, player: int, now: float) -> float:
        used = self.used[player]
        if self.running == player:
            used += max(0.0, now - self.since - self.delay)
        return used

    def left(self, player: int, now: float) -> float:
        """Reserve left (negative once it has run out)."""
        return self.reserve - self.used_now(player, now)

    def delay_left(self, now: float) -> float:
        return max(0.0, self.delay - (now - self.since)) if self.running is not None else 0.0

    def flagged(self, now: float) -> tuple[int, ...]:
        """The players whose reserve has run out."""
        return tuple(p for p in (0, 1) if self.left(p, now) <= 0)


def clock_text(seconds: float) -> str:
    """m:ss (or -m:ss past the flag)."""
    sign = "-" if seconds < 0 else ""
    whole = int(abs(seconds))
    return f"{sign}{whole // 60}:{whole % 60:02d}"


__all__ = ["MatchClock", "clock_text"]
