"""(position, roll) pairs for differential tests: random self-play, and the positions of the real matches."""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Iterator

from companion.record.jellyfish import read_match_file
from companion.record.audit import audit_match
from companion.rules import Position, Roll, all_rolls


def random_play_pairs(seed: int, count: int) -> Iterator[tuple[Position, Roll]]:
    """Positions from games of uniformly random legal plays, with the roll drawn in each."""
    rng = random.Random(seed)
    produced = 0
    while produced < count:
        position = Position.start()
        while not position.is_game_over() and produced < count:
            roll = Roll(rng.randint(1, 6), rng.randint(1, 6))
            yield position, roll
            produced += 1
            position = rng.choice(position.legal_plays(roll)).position


@lru_cache(maxsize=1)
def real_match_positions() -> tuple[Position, ...]:
    """Every position a player was on roll in, in the shared real matches (from our replay of them)."""
    from tests.conftest import match_files

    seen: dict[Position, None] = {}
    for path in match_files():
        report = audit_match(read_match_file(path), trace=True)
        for step in report.trace or []:
            seen.setdefault(Position.from_position_id(step.before), None)
    return tuple(seen)


def real_match_pairs(count: int | None, seed: int = 7) -> Iterator[tuple[Position, Roll]]:
    """Real positions with each of the 21 rolls (all of them, or `count` drawn at random)."""
    pairs = [(p, r) for p in real_match_positions() for r in all_rolls()]
    if count is not None and count < len(pairs):
        pairs = random.Random(seed).sample(pairs, count)
    yield from pairs


@lru_cache(maxsize=1)
def real_match_plays() -> tuple[tuple[Position, Roll, Position], ...]:
    """Every play of the shared real matches: (position before, roll, position after), both from the mover."""
    from tests.conftest import match_files

    plays = []
    for path in match_files():
        for step in audit_match(read_match_file(path), trace=True).trace or []:
            plays.append((Position.from_position_id(step.before), Roll(*step.dice),
                          Position.from_position_id(step.after)))
    return tuple(plays)
