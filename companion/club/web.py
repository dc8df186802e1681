"""The club's web page: a Starlette app (run by uvicorn) over a `ClubServer`.

Public and read-only: the room (every board as a card with a small SVG board), one board large (pips, dice, cube,
the play list, the engine's advice unless the event is referee-only), results and standings, and each match as
`.mat` and `.sgf`. Pages are drawn on the server and kept live by server-sent events that carry the changed card
or panel as HTML, so the browser runs no renderer of its own. The director's actions (start the event, name a
board, correct a result, download everything) need the director's token.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import secrets
import threading
import time
import zipfile
from dataclasses import dataclass, field
from typing import Any, Callable
from urllib.parse import parse_qs, quote

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from companion.club.server import ClubServer
from companion.club.svg import DARK, LIGHT, board_svg
from companion.errors import ClubError, CompanionError
from companion.rules.game import GameState

log = logging.getLogger("companion.club.web")

Advisor = Callable[[GameState], list[str]]
"""The engine's advice for spectators, as lines of text (the CLI passes one built on `analysis`)."""

KEEPALIVE = 15.0


@dataclass(eq=False)  # compared and hashed by identity: kept in a set
class _Client:
    """One open event stream: the boards changed since it last sent (a dict, so a busy board is sent once)."""

    board: str | None
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    pending: dict[str, float] = field(default_factory=dict)


class Hub:
    """Hands the server's "board changed" calls (from the MQTT thread) to the streams (in the event loop)."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.clients: set[_Client] = set()

    def notify(self, board: str, _n: int, sent: float) -> None:
        loop = self.loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._fan_out, board, sent)
            except RuntimeError:  # the loop closed between the check and the call
                pass

    def _fan_out(self, board: str, sent: float) -> None:
        for client in self.clients:
            if client.board is None or client.board == board or board == "":
                client.pending[board] = sent
                client.wake.set()


def status_text(b: dict[str, Any]) -> str:
    names = b["players"]
    if b["over"]:
        return f"{names[b['winner']]} won the match" if b["winner"] is not None else "match over"
    phase, who = b["phase"], names[b["turn"]]
    return {"opening": "opening roll", "roll": f"{who} to roll", "doubled": f"{who} to answer the double",
            "play": f"{who} to play", "over": "game over"}.get(phase, phase)


def final_winner(b: dict[str, Any]) -> int | None:
    """The director's result when given, else the referee's."""
    if b["result"] in ("0", "1"):
        return int(b["result"])
    return b["winner"] if b["over"] else None


def standings(boards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    table: dict[str, dict[str, Any]] = {}
    for b in boards:
        winner = final_winner(b)
        for player, name in enumerate(b["players"]):
            row = table.setdefault(name, {"name": name, "won": 0, "lost": 0, "playing": 0})
            if winner is None:
                row["playing"] += 1
            elif winner == player:
                row["won"] += 1
            else:
                row["lost"] += 1
    return sorted(table.values(), key=lambda r: (-r["won"], r["lost"], r["name"].lower()))


class ClubWeb:
    """The page's state: the server it shows, its templates, the director's token, the engine's advice."""

    def __init__(self, server: ClubServer, *, director_token: str, advisor: Advisor | None = None) -> None:
        if len(director_token) < 16:
            raise ClubError("the director's token must be at least 16 characters")
        self.server, self.token, self.advisor = server, director_token, advisor
        self.env = Environment(loader=PackageLoader("companion.club", "templates"),
                               autoescape=select_autoescape(["html"]))
        self.hub = Hub()
        self._advice: dict[tuple[str, int], list[str]] = {}
        self._advice_lock = threading.Lock()
        server.listeners.append(self.hub.notify)

    # -- drawing --------------------------------------------------------------------------------------------

    def _page(self, name: str, heading: str = "", **values: Any) -> str:
        return self.env.get_template(name).render(title=self.server.title, heading=heading, dark=DARK,
                                                  light=LIGHT, **values)

    def card(self, b: dict[str, Any]) -> str:
        title = f"board {b['title']}: {b['players'][0]} v {b['players'][1]}"
        return self.env.get_template("card.html").render(b=b, svg=board_svg(b, title=title), winner=final_winner(b))

    def advice(self, board: str, n: int) -> list[str]:
        """The engine's advice for the board's position after line `n`, worked out once."""
        if self.advisor is None:
            return []
        with self._advice_lock:
            cached = self._advice.get((board, n))
        if cached is not None:
            return cached
        game = self.server.game(board)
        try:
            lines = self.advisor(game) if game is not None else []
        except Exception as exc:  # the page goes on without advice
            log.warning("no advice for board %s: %s", board, exc)
            lines = []
        with self._advice_lock:
            if len(self._advice) > 2000:
                self._advice.clear()
            self._advice[(board, n)] = lines
        return lines

    async def panel(self, b: dict[str, Any]) -> str:
        advice = await run_in_threadpool(self.advice, b["board"], b["n"])
        title = f"board {b['title']}: {b['players'][0]} v {b['players'][1]}"
        return self.env.get_template("panel.html").render(b=b, svg=board_svg(b, numbers=True, title=title),
                                                          status=status_text(b), advice=advice)

    # -- public pages ---------------------------------------------------------------------------------------

    async def room(self, request: Request) -> Response:
        cards = [self.card(b) for b in self.server.summaries()]
        return HTMLResponse(self._page("room.html", "room", cards=cards))

    async def board(self, request: Request) -> Response:
        name = request.path_params["board"]
        for suffix in (".mat", ".sgf"):
            if name.endswith(suffix):
                return self.download(name[: -len(suffix)], suffix)
        b = self.server.summary(name)
        if b is None:
            return PlainTextResponse(f"no board {name}", status_code=404)
        return HTMLResponse(self._page("board.html", f"board {b['title']}", board=name, shown=b["title"],
                                       label=b["label"], panel=await self.panel(b)))

    def download(self, name: str, suffix: str) -> Response:
        try:
            text = self.server.match_text(name, suffix)
        except CompanionError as exc:  # a .mat cannot carry an illegal play that stood: the .sgf can
            return PlainTextResponse(f"board {name}: {exc}", status_code=409)
        if text is None:
            return PlainTextResponse(f"no board {name}", status_code=404)
        filename = f"{self.server.event}-board-{name}{suffix}"
        return Response(text, media_type="text/plain; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{filename}"'})

    async def results(self, request: Request) -> Response:
        boards = [dict(b, final=final_winner(b)) for b in self.server.summaries()]
        return HTMLResponse(self._page("results.html", "results", boards=boards, standings=standings(boards)))

    async def api_boards(self, request: Request) -> Response:
        return JSONResponse({"event": self.server.event, "title": self.server.title,
                             "boards": self.server.summaries()})

    async def events(self, request: Request) -> Response:
        self.hub.loop = asyncio.get_running_loop()
        client = _Client(request.query_params.get("board"))
        self.hub.clients.add(client)

        async def stream():
            try:
                yield "retry: 1000\n\n"
                while True:
                    try:
                        await asyncio.wait_for(client.wake.wait(), KEEPALIVE)
                    except asyncio.TimeoutError:
                        yield ": still here\n\n"
                        continue
                    client.wake.clear()
                    pending, client.pending = client.pending, {}
                    for name, sent in pending.items():
                        message = await self._message(client, name, sent)
                        if message is not None:
                            yield f"event: board\ndata: {json.dumps(message)}\n\n"
            finally:
                self.hub.clients.discard(client)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    async def _message(self, client: _Client, name: str, sent: float) -> dict[str, Any] | None:
        if name == "":  # the event itself changed (its title): the page reloads
            return {"board": "", "n": -1, "sent": sent, "html": ""}
        b = self.server.summary(name)
        if b is None:
            return None
        html = self.card(b) if client.board is None else await self.panel(b)
        return {"board": name, "n": b["n"], "sent": sent, "html": html}

    # -- the director ---------------------------------------------------------------------------------------

    async def _authorised(self, request: Request) -> dict[str, str] | None:
        """The form's fields when the request carries the director's token (header, form or query), else None."""
        fields: dict[str, str] = dict(request.query_params)
        if request.method == "POST" and request.headers.get("content-type", "").startswith(
                "application/x-www-form-urlencoded"):
            # parsed here: the forms are small and plain, and Starlette's parser needs python-multipart
            body = (await request.body())[:16384]
            fields.update({k: v[-1] for k, v in parse_qs(body.decode("utf-8", "replace")).items()})
        given = fields.get("token", "")
        auth = request.headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            given = auth[7:].strip()
        if not secrets.compare_digest(given.encode(), self.token.encode()):
            log.warning("director action refused: %s %s from %s", request.method, request.url.path,
                        request.client.host if request.client else "?")
            return None
        return fields

    async def director(self, request: Request) -> Response:
        fields = await self._authorised(request)
        if fields is None:
            return PlainTextResponse("the director's token is needed", status_code=403)
        return HTMLResponse(self._page("director.html", "director", token=fields["token"], event_title=self.server.title,
                                       boards=self.server.summaries()))

    async def director_action(self, request: Request) -> Response:
        fields = await self._authorised(request)
        if fields is None:
            return PlainTextResponse("the director's token is needed", status_code=403)
        action = request.path_params["action"]
        try:
            if action == "start":
                await run_in_threadpool(self.server.start_event, fields.get("title", ""))
                done = True
            elif action == "label":
                done = await run_in_threadpool(self.server.set_label, fields.get("board", ""), fields.get("label", ""))
            elif action == "result":
                done = await run_in_threadpool(self.server.set_result, fields.get("board", ""),
                                               fields.get("winner", ""))
            else:
                return PlainTextResponse(f"no director action {action!r}", status_code=404)
        except ClubError as exc:
            return PlainTextResponse(str(exc), status_code=400)
        if not done:
            return PlainTextResponse(f"no board {fields.get('board')!r}", status_code=404)
        if "text/html" in request.headers.get("accept", ""):
            return RedirectResponse(f"/director?token={quote(self.token)}", status_code=303)
        return JSONResponse({"done": action})

    async def all_matches(self, request: Request) -> Response:
        if await self._authorised(request) is None:
            return PlainTextResponse("the director's token is needed", status_code=403)
        buffer = io.BytesIO()
        missing = []
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
            for b in self.server.summaries():
                for suffix in (".mat", ".sgf"):
                    name = f"{self.server.event}-board-{b['board']}{suffix}"
                    try:
                        text = self.server.match_text(b["board"], suffix)
                    except CompanionError as exc:  # one board's .mat must not cost the night's other files
                        missing.append(f"{name}: {exc}")
                        continue
                    if text is not None:
                        _add(z, name, text)
            if missing:
                _add(z, "NOT-WRITTEN.txt", "Files not in this archive, and why:\n" + "\n".join(missing) + "\n")
        return Response(buffer.getvalue(), media_type="application/zip",
                        headers={"Content-Disposition": f'attachment; filename="{self.server.event}.zip"'})

    def app(self) -> Starlette:
        return Starlette(routes=[
            Route("/", self.room),
            Route("/results", self.results),
            Route("/api/boards", self.api_boards),
            Route("/events", self.events),
            Route("/director", self.director),
            Route("/director/all.zip", self.all_matches),
            Route("/director/{action}", self.director_action, methods=["POST"]),
            Route("/board/{board}", self.board),
        ])


def _add(z: zipfile.ZipFile, name: str, text: str) -> None:
    """A file of the archive, readable by everyone once unpacked (`writestr` by name alone gives 0600)."""
    info = zipfile.ZipInfo(name, time.localtime()[:6])
    info.compress_type, info.external_attr = zipfile.ZIP_DEFLATED, 0o644 << 16
    z.writestr(info, text)


def new_token() -> str:
    return secrets.token_urlsafe(24)


class WebThread:
    """uvicorn serving the page from a thread of its own (for `companion serve`, the tests and the benchmark)."""

    def __init__(self, web: ClubWeb, host: str = "127.0.0.1", port: int = 8080) -> None:
        import uvicorn

        self.host, self.port = host, port
        config = uvicorn.Config(web.app(), host=host, port=port, log_level="warning", access_log=False,
                                timeout_graceful_shutdown=1, lifespan="off")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="club-web", daemon=True)

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host
        return f"http://{host}:{self.port}"

    def start(self, timeout: float = 10.0) -> WebThread:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise ClubError(f"the web page could not listen on {self.host}:{self.port} (port taken?)")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(5)
