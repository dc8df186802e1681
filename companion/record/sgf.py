"""Smart Game Format for backgammon (GM[6]), as GNU Backgammon reads and writes it: one game tree per game.

What it carries that `.mat` cannot: an illegal play that stood (a setup node with the board after it) and a
position set by hand. Coordinates: White (player 0) writes his point p as `'a' + p - 1`, Black (player 1)
as `'x' - (p - 1)`; the bar is `y`, off is `z`. A move node is the dice then up to four from/to pairs
(`;W[51mhxw]` is 51: 13/8 24/23); a roll that cannot be played is the dice alone.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import replace
from pathlib import Path

from companion import __version__
from companion.errors import MatchFileError
from companion.files import write_atomically
from companion.record.model import Action, ActionKind, GameRecord, MatchRecord
from companion.rules import BAR, OFF, Position
from companion.rules.notation import parse_moves

_COLOUR = ("W", "B")
_STOOD = "illegal play stood: "
_HEADER = (("EV", "Event"), ("RO", "Round"), ("PC", "Site"), ("DT", "EventDate"), ("AN", "Transcriber"),
           ("GC", "Comment"), ("WR", "Player 1 Elo"), ("BR", "Player 2 Elo"))
"""The match information GNU Backgammon keeps in each game's root, and the `.mat` header key of each (gnubg reads
and writes the annotator as `Transcriber`; `Annotator`, which this program wrote before, is read too)."""


def _sgf_date(mat_date: str) -> str:
    """`.mat` writes 2026.11.25, SGF 2026-11-25."""
    return mat_date.replace(".", "-")


def _mat_date(sgf_date: str) -> str:
    return sgf_date.replace("-", ".")


# -- writing ------------------------------------------------------------------------------------------


def format_sgf(record: MatchRecord) -> str:
    return "".join(_game_tree(record, game, index) for index, game in enumerate(record.games))


def write_sgf(record: MatchRecord, path: str | Path) -> None:
    write_atomically(Path(path), format_sgf(record))


def _game_tree(record: MatchRecord, game: GameRecord, index: int) -> str:
    root = [f"FF[4]GM[6]CA[UTF-8]AP[Backgammon Companion:{__version__}]",
            f"MI[length:{record.length}][game:{index}][ws:{game.score[0]}][bs:{game.score[1]}]",
            f"PW[{_escape(record.players[0])}]PB[{_escape(record.players[1])}]"]
    # a header's "Player 1" is a name, not a column: his rating goes with him (gbf's names Player 1 the right one)
    swapped = (record.metadata.get("Player 1"), record.metadata.get("Player 2")) == record.players[::-1]
    for key, name in _HEADER:
        if swapped and key in ("WR", "BR"):
            name = "Player 2 Elo" if key == "WR" else "Player 1 Elo"
        value = record.metadata.get(name) or (record.metadata.get("Annotator") if key == "AN" else None)
        if value:
            root.append(f"{key}[{_escape(_sgf_date(value) if key == 'DT' else value)}]")
    if record.length and record.crawford_rule:
        crawford_game = record.length > 1 and record.length - 1 in game.score and _first_at_away_one(record, index)
        root.append("RU[Crawford:CrawfordGame]" if crawford_game else "RU[Crawford]")
    elif not record.length and record.jacoby:
        root.append("RU[Jacoby]")
    win = next((a for a in game.actions if a.kind is ActionKind.WIN), None)
    if win is not None:
        resigned = any(a.kind is ActionKind.RESIGN for a in game.actions) or win.text == "resigned"
        root.append(f"RE[{_COLOUR[win.player]}+{win.value or 1}{'R' if resigned else ''}]")
    nodes = [";" + "".join(root)]
    for action in game.actions:
        node = _node(action)
        if node:
            nodes.append(";" + node)
    return "(" + "\n".join(nodes) + ")\n"


def _first_at_away_one(record: MatchRecord, index: int) -> bool:
    """The Crawford game is the first game in which a player stands one point from victory."""
    needed = record.length - 1
    return not any(needed in g.score for g in record.games[:index])


def _node(action: Action) -> str:
    colour = _COLOUR[action.player]
    kind = action.kind
    if kind is ActionKind.ROLL:
        d1, d2 = action.dice  # type: ignore[misc]
        steps = parse_moves(action.notation) if action.notation else []
        return f"{colour}[{d1}{d2}{''.join(_coord(action.player, s) + _coord(action.player, d) for s, d, _ in steps)}]"
    if kind is ActionKind.DOUBLE:
        return f"{colour}[double]"
    if kind is ActionKind.TAKE:
        return f"{colour}[take]"
    if kind is ActionKind.DROP:
        return f"{colour}[drop]"
    if kind is ActionKind.BEAVER:  # as GNU Backgammon writes one: the double answered by a double, the doubler's take
        return f"{colour}[double]\n;{_COLOUR[1 - action.player]}[take]"
    if kind is ActionKind.STOOD:
        assert action.position is not None
        # the dice as a roll with no move, then the board as it stood, the opponent to act
        d1, d2 = action.dice  # type: ignore[misc]
        return f"{colour}[{d1}{d2}]C[{_escape(_STOOD + action.text)}]\n;" + _setup(
            action.position, 1 - action.player)
    if kind is ActionKind.SETUP:
        assert action.position is not None
        return _setup(action.position, action.player)
    return ""  # WIN and RESIGN live in the root's RE


def _setup(position: Position, to_act: int) -> str:
    """A setup node as GNU Backgammon writes one: the board cleared, then White's and Black's checkers, each
    in his own numbering (`position` is from the side of `to_act`); the next move node says who is on turn."""
    white, black = (position.player, position.opponent) if to_act == 0 else (position.opponent, position.player)
    aw = "".join(f"[{_coord(0, p)}]" * white[p] for p in range(1, 26))
    ab = "".join(f"[{_coord(1, p)}]" * black[p] for p in range(1, 26))
    return f"AE[a:y]AW{aw or '[]'}AB{ab or '[]'}PL[{_COLOUR[to_act]}]"


def _coord(player: int, point: int) -> str:
    if point == BAR:
        return "y"
    if point == OFF:
        return "z"
    return chr(ord("a") + point - 1) if player == 0 else chr(ord("x") - (point - 1))


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


# -- reading ------------------------------------------------------------------------------------------

_PROPERTY = re.compile(r"([A-Z]+)((?:\s*\[(?:[^\]\\]|\\.)*\])+)", re.S)
_VALUE = re.compile(r"\[((?:[^\]\\]|\\.)*)\]", re.S)


def read_sgf(path: str | Path) -> MatchRecord:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        text = p.read_text(encoding="latin-1")
    except OSError as exc:
        raise MatchFileError(f"cannot read {p}: {exc.strerror or exc}") from exc
    return parse_sgf(text, str(p))


def parse_sgf(text: str, source: str = "<sgf>") -> MatchRecord:
    trees = _split_trees(text, source)
    if not trees:
        raise MatchFileError(f"{source}: no SGF game trees; is this an SGF file?")
    games: list[GameRecord] = []
    length, players = 0, ("White", "Black")
    metadata: dict[str, str] = {}
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_of(offset: int) -> int:  # findings name the file's line, as they do in a .mat file
        return bisect.bisect_right(line_starts, offset)

    for number, placed in enumerate(trees, start=1):
        nodes = [props for props, _ in placed]
        root = nodes[0]
        if root.get("GM", ["6"])[0] != "6":
            raise MatchFileError(f"{source}: game {number} is not backgammon (GM[{root['GM'][0]}])")
        info = {k: v for k, v in (item.split(":", 1) for item in root.get("MI", []) if ":" in item)}
        try:
            length = int(info.get("length", length))
            score = (int(info.get("ws", 0)), int(info.get("bs", 0)))
        except ValueError as exc:
            raise MatchFileError(f"{source}: game {number}: unreadable match information {root.get('MI')}") from exc
        players = (root.get("PW", [players[0]])[0], root.get("PB", [players[1]])[0])
        if "RU" in root and not any(r.startswith("Crawford") for r in root["RU"]) and length:
            metadata["Crawford"] = "Off"
        for key, name in _HEADER:
            if key in root:
                metadata.setdefault(name, _mat_date(root[key][0]) if key == "DT" else root[key][0])
        # an action's move is its node's number in the game (one player's roll, double or answer a node; a .mat
        # file's move is a line of two), its line the file's
        actions: list[Action] = []
        for move, (node, offset) in enumerate(placed[1:], start=1):
            if _beaver_set(node, actions):
                actions[-1] = replace(actions[-1], kind=ActionKind.BEAVER, value=int(node["CV"][0]))
                continue
            actions += [replace(a, line=line_of(offset), move=move) for a in _actions(node, source, number)]
        actions = _beavers(_merge_stood(actions))
        result = root.get("RE", [""])[0]
        if m := re.fullmatch(r"([WB])\+(\d+)(R?)", result):
            winner = _COLOUR.index(m.group(1))
            actions.append(Action(winner, ActionKind.WIN, line_of(placed[0][1]), value=int(m.group(2)),
                                  text=f"Wins {m.group(2)} points" + (" (resigned)" if m.group(3) else "")))
        games.append(GameRecord(number, score, tuple(actions), line_of(placed[0][1])))
    return MatchRecord(length, players, tuple(games), metadata, source)


def _split_trees(text: str, source: str) -> list[list[tuple[dict[str, list[str]], int]]]:
    """Each top-level `( ... )` as its list of nodes (properties name -> values), each with the character it starts
    at; variations are not kept."""
    trees: list[list[tuple[dict[str, list[str]], int]]] = []
    depth, start, i = 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch == "[":  # skip a value, escapes included
            m = _VALUE.match(text, i)
            if not m:
                raise MatchFileError(f"{source}: an unclosed [ at character {i}")
            i = m.end()
            continue
        if ch == "(":
            if depth == 0:
                start = i + 1
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise MatchFileError(f"{source}: an unmatched ) at character {i}")
            if depth == 0:
                trees.append(_nodes(text[start:i], start))
        i += 1
    if depth:
        raise MatchFileError(f"{source}: the file ends inside a game tree (truncated?)")
    return trees


def _nodes(body: str, offset: int = 0) -> list[tuple[dict[str, list[str]], int]]:
    """The nodes of a tree's `body` (at character `offset` of the file), each with the character it starts at."""
    nodes = []
    for chunk, at in _split_nodes(body):
        props: dict[str, list[str]] = {}
        for m in _PROPERTY.finditer(chunk):
            props[m.group(1)] = [v.replace("\\]", "]").replace("\\\\", "\\") for v in _VALUE.findall(m.group(2))]
        nodes.append((props, offset + at))
    return nodes


def _split_nodes(body: str) -> list[tuple[str, int]]:
    parts, current, i, at = [], [], 0, 0
    while i < len(body):
        ch = body[i]
        if ch == "[":
            m = _VALUE.match(body, i)
            end = m.end() if m else len(body)
            current.append(body[i:end])
            i = end
            continue
        if ch == ";":
            if current:
                parts.append(("".join(current), at))
            current, at = [], i
        elif ch in "()":
            break  # a variation: only the main line is read
        else:
            current.append(ch)
        i += 1
    if current:
        parts.append(("".join(current), at))
    return [(p, at) for p, at in parts if p.strip()]


def _actions(node: dict[str, list[str]], source: str, game: int) -> list[Action]:
    out: list[Action] = []
    for colour in _COLOUR:
        if colour not in node:
            continue
        player = _COLOUR.index(colour)
        value = node[colour][0]
        if value == "double":
            out.append(Action(player, ActionKind.DOUBLE))
        elif value == "take":
            out.append(Action(player, ActionKind.TAKE))
        elif value == "drop":
            out.append(Action(player, ActionKind.DROP))
        elif re.fullmatch(r"[1-6]{2}[a-z]{0,8}", value) and len(value) % 2 == 0:
            steps = [(_point(player, value[i]), _point(player, value[i + 1])) for i in range(2, len(value), 2)]
            stood = node.get("C", [""])[0].startswith(_STOOD)
            out.append(Action(player, ActionKind.ROLL, dice=(int(value[0]), int(value[1])),
                              notation=" ".join(f"{s}/{d}" for s, d in steps),
                              text=node["C"][0][len(_STOOD):] if stood else value, value=1 if stood else None))
        else:
            raise MatchFileError(f"{source}: game {game}: cannot read the move {colour}[{value}]")
    if "AE" in node or "AW" in node or "AB" in node:
        out.append(_setup_action(node))
    return out


def _beaver_set(node: dict[str, list[str]], actions: list[Action]) -> bool:
    """A node only setting the cube (`CV`, `CP`) to the taker, right after a take: how this program wrote a beaver
    before session 46 (a take, then the cube at four times its value, his)."""
    if set(node) - {"CV", "CP"} or not actions or actions[-1].kind is not ActionKind.TAKE:
        return False
    taker = actions[-1].player
    return node.get("CP", [""])[0].upper() == _COLOUR[taker] and node.get("CV", [""])[0].isdigit()


def _beavers(actions: list[Action]) -> list[Action]:
    """GNU Backgammon writes a beaver as the double answered by a double, then the doubler's take: one BEAVER
    action here, the cube at four times what it was (`value`), the take part of it."""
    out: list[Action] = []
    cube, offered, beaver_by = 1, None, None
    for action in actions:
        if action.kind is ActionKind.DOUBLE and offered is not None and action.player != offered:
            cube *= 4
            out.append(replace(action, kind=ActionKind.BEAVER, value=cube))
            offered, beaver_by = None, action.player
            continue
        if action.kind is ActionKind.TAKE and beaver_by is not None and action.player != beaver_by:
            beaver_by = None  # the doubler cannot refuse a beaver: his take is the beaver's
            continue
        beaver_by = None
        if action.kind is ActionKind.DOUBLE:
            offered = action.player
        elif action.kind is ActionKind.TAKE and offered is not None:
            cube, offered = cube * 2, None
        elif action.kind is ActionKind.BEAVER:
            cube, offered = action.value or cube * 4, None
        elif action.kind is ActionKind.DROP:
            offered = None
        out.append(action)
    return out


def _merge_stood(actions: list[Action]) -> list[Action]:
    """A roll marked as a stood illegal play, and the setup node after it, are one STOOD action."""
    out: list[Action] = []
    for action in actions:
        previous = out[-1] if out else None
        if (action.kind is ActionKind.SETUP and previous is not None and previous.kind is ActionKind.ROLL
                and previous.value == 1 and action.player == 1 - previous.player):
            out[-1] = Action(previous.player, ActionKind.STOOD, previous.line, previous.move, dice=previous.dice,
                             position=action.position, text=previous.text)
        else:
            out.append(action)
    return out


def _setup_action(node: dict[str, list[str]]) -> Action:
    sides = [[0] * 26, [0] * 26]
    for player, key in ((0, "AW"), (1, "AB")):
        for value in node.get(key, []):
            for ch in _expand(value):
                sides[player][_point(player, ch)] += 1
    for side in sides:
        side[OFF] = 15 - sum(side)
    to_act = _COLOUR.index(node.get("PL", ["W"])[-1])
    mine, theirs = sides[to_act], sides[1 - to_act]
    return Action(to_act, ActionKind.SETUP, position=Position(tuple(mine), tuple(theirs)))


def _expand(value: str) -> str:
    if ":" in value:
        a, b = value.split(":", 1)
        return "".join(chr(c) for c in range(ord(a), ord(b)))
    return value


def _point(player: int, ch: str) -> int:
    if ch == "y":
        return BAR
    if ch == "z":
        return OFF
    return ord(ch) - ord("a") + 1 if player == 0 else ord("x") - ord(ch) + 1


__all__ = ["format_sgf", "parse_sgf", "read_sgf", "write_sgf"]
