"""Observations and events as JSON objects: observations both ways (a journal is replayed from them), events
one way (what happened, for people and tools; the referee recomputes them on replay).

Positions are written as GNU Backgammon Position IDs from the side the value is held from, plays in standard
notation, so a journal is readable with nothing but a text editor and gnubg.
"""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any

from companion.errors import CompanionError
from companion.referee.events import Event, Names
from companion.referee.observations import (
    BoardReading,
    Command,
    CubePlace,
    CubeReading,
    DiceReading,
    Observation,
    SlotReading,
    UserCommand,
)
from companion.rules import Play, Position, Roll


class CodecError(CompanionError):
    """A journal line that does not describe an observation."""


def observation_to_json(obs: Observation) -> dict[str, Any]:
    if isinstance(obs, BoardReading):
        out = {"type": "board", "time": obs.time, "points": [_slot(s) for s in obs.points],
               "bar": [_slot(s) for s in obs.bar], "off": None if obs.off is None else [_slot(s) for s in obs.off]}
        if obs.mended:  # written only when set: journals before it read the same
            out["mended"] = True
        return out
    if isinstance(obs, DiceReading):
        return {"type": "dice", "time": obs.time, "values": list(obs.values), "valid": obs.valid,
                "reason": obs.reason, "roller": obs.roller, "sequence": obs.sequence,
                "halves": list(obs.halves)}
    if isinstance(obs, CubeReading):
        return {"type": "cube", "time": obs.time, "value": obs.value, "place": obs.place.value,
                "confidence": obs.confidence}
    if isinstance(obs, UserCommand):
        return {"type": "command", "time": obs.time, "command": obs.command.value, "player": obs.player,
                "value": obs.value, "position": None if obs.position is None else obs.position.position_id()}
    raise TypeError(f"not an observation: {obs!r}")


def observation_from_json(data: dict[str, Any]) -> Observation:
    try:
        kind = data["type"]
        time = float(data.get("time", 0.0))
        if kind == "board":
            off = data.get("off")
            return BoardReading(tuple(_slot_from(s) for s in data["points"]),
                                (_slot_from(data["bar"][0]), _slot_from(data["bar"][1])),
                                None if off is None else (_slot_from(off[0]), _slot_from(off[1])), time,
                                bool(data.get("mended", False)))
        if kind == "dice":
            return DiceReading(tuple(data["values"]), data["valid"], data.get("reason"), data.get("roller"),
                               data.get("sequence"), time, tuple(data.get("halves", ())))
        if kind == "cube":
            return CubeReading(data["value"], CubePlace(data["place"]), data.get("confidence", 1.0), time)
        if kind == "command":
            position = data.get("position")
            return UserCommand(Command(data["command"]), data.get("player"), data.get("value", 1),
                               None if position is None else Position.from_position_id(position), time)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise CodecError(f"not a valid observation ({exc}): {str(data)[:80]}") from exc
    raise CodecError(f"unknown observation type {data.get('type')!r}")


def event_to_json(event: Event, names: Names) -> dict[str, Any]:
    out: dict[str, Any] = {"type": type(event).__name__, "text": event.text(names)}
    for f in dataclasses.fields(event):
        value = getattr(event, f.name)
        if isinstance(value, tuple) and value and isinstance(value[0], Event):  # what an undo took back
            out[f.name] = [event_to_json(e, names) for e in value]
        else:
            out[f.name] = _plain(value)
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, Position):
        return value.position_id()
    if isinstance(value, Play):
        return value.notation
    if isinstance(value, Roll):
        return str(value)
    if isinstance(value, Enum):
        return value.name.lower()
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def _slot(slot: SlotReading) -> list:
    if slot.low == slot.count == slot.high:
        return [slot.owner, slot.count, slot.confidence]
    return [slot.owner, slot.count, slot.confidence, slot.low, slot.high]


def _slot_from(data: list) -> SlotReading:
    return SlotReading(*data)


__all__ = ["CodecError", "event_to_json", "observation_from_json", "observation_to_json"]
