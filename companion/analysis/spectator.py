"""The engine's word for spectators of a club match: the best play of the roll on the board, or the cube decision
before the roll, as short lines of text for the web page (`club.web` takes any function of a `GameState`)."""

from __future__ import annotations

from companion.analysis.engine import Engine
from companion.rules.game import GameState, Phase


def spectator_advice(engine: Engine, game: GameState) -> list[str]:
    """Lines of advice for the decision on the board now; none when there is no decision (opening, game over)."""
    if game.phase is Phase.PLAY and game.dice is not None:
        hint = engine.hint_for(game)
        best = hint.best
        lines = [f"Best play {best.play.notation}  (equity {best.equity:+.3f}, wins {best.chances.win:.0%})"]
        if len(hint.plays) > 1:
            second = hint.plays[1]
            lines.append(f"Next {second.play.notation}  ({-second.loss:+.3f})")
        return lines
    advice = engine.cube_for(game)
    if advice is None:
        return []
    return [f"Cube: {advice.action.value}",
            f"No double {advice.no_double:+.3f} · double/take {advice.double_take:+.3f} · "
            f"double/pass {advice.double_pass:+.3f}"]
