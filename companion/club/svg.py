"""A board drawn as SVG from a board's summary (the server's plain-JSON view of it), for the web page: small in the
room view, large in the board view. A pure function of the summary, so the page and its tests draw the same thing.

Player 0's home is at the bottom right, as on the companion's own board; player 0's checkers are dark.
"""

from __future__ import annotations

from html import escape
from typing import Any

W, H = 286, 200
POINT_W, POINT_LEN, R = 19.0, 76.0, 8.6
LEFT, BAR_X, BAR_W, RIGHT = 10.0, 124.0, 16.0, 140.0
TOP, BOTTOM = 10.0, 190.0
TRAY_X, TRAY_W = 260.0, 18.0
DARK, LIGHT = "#26211d", "#f4ecdc"
"""Checker colours of player 0 and player 1; the page's legend uses them too."""
FACE = {0: DARK, 1: LIGHT}
INK = {0: LIGHT, 1: DARK}


def _column(point: int) -> tuple[float, bool]:
    """Left x of a point (1..24, player 0's numbering) and whether it hangs from the top."""
    if point <= 6:
        return RIGHT + (6 - point) * POINT_W, False
    if point <= 12:
        return LEFT + (12 - point) * POINT_W, False
    if point <= 18:
        return LEFT + (point - 13) * POINT_W, True
    return RIGHT + (point - 19) * POINT_W, True


def _stack(parts: list[str], cx: float, edge: float, down: bool, count: int, player: int, room: int = 5) -> None:
    step = 2 * R
    for i in range(min(count, room)):
        cy = edge + R + i * step if down else edge - R - i * step
        parts.append(f'<circle class="c{player}" cx="{cx:.1f}" cy="{cy:.1f}" r="{R - 0.4}" fill="{FACE[player]}" '
                     f'stroke="#8a7a66" stroke-width="0.8"/>')
    if count > room:  # a tall stack: the top checker carries the number
        cy = edge + R + (room - 1) * step if down else edge - R - (room - 1) * step
        parts.append(f'<text x="{cx:.1f}" y="{cy + 3.5:.1f}" font-size="10" text-anchor="middle" '
                     f'fill="{INK[player]}" font-family="sans-serif">{count}</text>')


def board_svg(summary: dict[str, Any], *, numbers: bool = False, title: str = "") -> str:
    """The position of `summary` as an SVG element that scales to its container's width."""
    parts = [f'<svg class="board" viewBox="0 0 {W} {H}" xmlns="http://www.w3.org/2000/svg" role="img" '
             f'aria-label="{escape(title or "board")}">',
             f'<rect width="{W}" height="{H}" rx="6" fill="#6b4226"/>',
             f'<rect x="{LEFT}" y="{TOP}" width="{BAR_X - LEFT}" height="{BOTTOM - TOP}" fill="#2f6b45"/>',
             f'<rect x="{RIGHT}" y="{TOP}" width="{BAR_X - LEFT}" height="{BOTTOM - TOP}" fill="#2f6b45"/>',
             f'<rect x="{TRAY_X}" y="{TOP}" width="{TRAY_W}" height="{BOTTOM - TOP}" fill="#4a2e1a"/>']
    for point in range(1, 25):
        x, top = _column(point)
        fill = "#c8a165" if point % 2 else "#8c3b2e"
        tip = TOP + POINT_LEN if top else BOTTOM - POINT_LEN
        base = TOP if top else BOTTOM
        parts.append(f'<polygon points="{x:.1f},{base} {x + POINT_W:.1f},{base} {x + POINT_W / 2:.1f},{tip}" '
                     f'fill="{fill}"/>')
        if numbers:
            y = TOP + POINT_LEN + 9 if top else BOTTOM - POINT_LEN - 3
            parts.append(f'<text x="{x + POINT_W / 2:.1f}" y="{y:.1f}" font-size="6.5" text-anchor="middle" '
                         f'fill="#d9e8dc" font-family="sans-serif">{point}</text>')
    for point, count in enumerate(summary.get("points", []), start=1):
        if count:
            x, top = _column(point)
            _stack(parts, x + POINT_W / 2, TOP if top else BOTTOM, top, abs(count), 0 if count > 0 else 1)
    bar = summary.get("bar", [0, 0])
    cx = BAR_X + BAR_W / 2
    # a checker on the bar waits to come in on the opponent's home board: player 0's on the top half
    _stack(parts, cx, TOP + 34, True, bar[0], 0, room=3)
    _stack(parts, cx, BOTTOM - 34, False, bar[1], 1, room=3)
    off = summary.get("off", [0, 0])
    for player, count in enumerate(off):
        if count:
            base = BOTTOM if player == 0 else TOP
            for i in range(count):  # borne-off checkers lie on their sides, 15 to a tray half
                y = base - 5 - i * 5 if player == 0 else base + 1 + i * 5
                parts.append(f'<rect class="o{player}" x="{TRAY_X + 2}" y="{y:.1f}" width="{TRAY_W - 4}" '
                             f'height="4" fill="{FACE[player]}" stroke="#8a7a66" stroke-width="0.5"/>')
    cube, owner = summary.get("cube", 1), summary.get("cube_owner")
    cy = H / 2 if owner is None else (BOTTOM - 14 if owner == 0 else TOP + 14)
    label = 64 if cube == 1 else cube
    parts.append(f'<rect class="cube" x="{cx - 8}" y="{cy - 8}" width="16" height="16" rx="2" fill="#fffbe8" '
                 f'stroke="#333" stroke-width="0.8"/><text x="{cx}" y="{cy + 4}" font-size="{9 if label < 10 else 7.5}"'
                 f' text-anchor="middle" font-family="sans-serif" fill="#222">{label}</text>')
    dice = summary.get("dice") or []
    if dice:
        player = summary.get("turn", 0)
        x0 = (RIGHT + 30) if player == 0 else (LEFT + 30)
        for i, value in enumerate(dice):
            parts.append(_die(x0 + i * 26, H / 2 - 10, value, player))
    parts.append("</svg>")
    return "".join(parts)


PIPS = {1: [(1, 1)], 2: [(0, 0), (2, 2)], 3: [(0, 0), (1, 1), (2, 2)], 4: [(0, 0), (2, 0), (0, 2), (2, 2)],
        5: [(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)], 6: [(0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)]}


def _die(x: float, y: float, value: int, player: int) -> str:
    face, ink = ("#b3262e", "#fff") if player == 0 else ("#fffdf7", "#222")
    dots = "".join(f'<circle cx="{x + 4.5 + i * 5.5:.1f}" cy="{y + 4.5 + j * 5.5:.1f}" r="1.7" fill="{ink}"/>'
                   for i, j in PIPS.get(value, []))
    return (f'<g class="die" data-value="{value}"><rect x="{x}" y="{y}" width="20" height="20" rx="3" '
            f'fill="{face}" stroke="#333" stroke-width="0.8"/>{dots}</g>')
