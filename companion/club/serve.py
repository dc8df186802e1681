"""`companion serve` put together: a local Mosquitto (or a hosted broker by URL), the store, the server that
re-referees, and the web page. Kept out of the CLI so the tests and the benchmark start exactly what a director
starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from companion.club.broker import BrokerConfig, LocalBroker, write_private
from companion.club.server import ClubServer
from companion.club.store import Store
from companion.club.topics import SERVER_USER, ClubURL, check_name
from companion.club.web import Advisor, ClubWeb, WebThread, new_token
from companion.errors import ClubError

EVERYWHERE = "0.0.0.0"


@dataclass(frozen=True, slots=True)
class ServeOptions:
    folder: Path
    """Broker configuration, tokens and (by default) the SQLite file."""
    event: str = "club"
    broker: str = "local"
    """"local" or an mqtt(s):// URL whose path is the event."""
    boards: int = 20
    """With a local broker: boards 1..N get credentials."""
    db: str | None = None
    listen: bool = False
    web_port: int = 8080
    mqtt_port: int = 1883
    user: str | None = None
    password: str | None = None
    ca: str | None = None


def lan_addresses() -> list[str]:
    """This machine's addresses that other machines in the room can reach (IPv4, not loopback), likeliest first:
    the one a route to the outside leaves by (no packet is sent), then the host name's."""
    import socket

    found: list[str] = []
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: a connect on UDP only picks the route
            found.append(probe.getsockname()[0])
    except OSError:
        pass
    try:
        found += [info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
    except OSError:
        pass
    return [a for i, a in enumerate(found) if a not in found[:i] and not a.startswith(("127.", "0."))]


def read_secret(path: str | Path) -> str:
    """A password or token kept in a file (its first line)."""
    try:
        text = Path(path).expanduser().read_text().strip()
    except OSError as exc:
        raise ClubError(f"cannot read {path}: {exc.strerror}") from exc
    if not text:
        raise ClubError(f"{path} is empty")
    return text.splitlines()[0].strip()


class ClubNight:
    """Everything `companion serve` runs; `start()` then `stop()`."""

    def __init__(self, options: ServeOptions, advisor: Advisor | None = None) -> None:
        self.options = options
        folder = options.folder.expanduser()
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.broker: LocalBroker | None = None
        host = EVERYWHERE if options.listen else "127.0.0.1"
        if options.broker == "local":
            event = check_name("event", options.event)
            boards = tuple(str(n) for n in range(1, options.boards + 1))
            self.broker = LocalBroker(BrokerConfig(folder / "broker", event, boards, options.mqtt_port, host))
            self.url = ClubURL.parse(self.broker.url())
            password = self.broker.passwords[SERVER_USER]
            for board in boards:
                self.broker.token_file(board, folder / "tokens")
        else:
            self.url = ClubURL.parse(options.broker)
            password = options.password or self.url.password
            if password is None:
                raise ClubError("a hosted broker needs the server's --password or --token-file")
        self.store = Store(options.db or str(folder / "club.db"))
        self.server = ClubServer(self.store, self.url, password=password, user=options.user or SERVER_USER,
                                 ca=options.ca)
        self.token = self._director_token()
        self.web = ClubWeb(self.server, director_token=self.token, advisor=advisor)
        self.web_thread = WebThread(self.web, host, options.web_port)

    def _director_token(self) -> str:
        path = self.folder / "director.token"
        if path.exists():
            return read_secret(path)
        token = new_token()
        write_private(path, token + "\n")
        return token

    def start(self) -> ClubNight:
        if self.broker is not None:
            self.broker.start()
        self.server.start()
        self.web_thread.start()
        return self

    def keep_broker(self) -> str | None:
        """Start the local broker again if it stopped (killed, crashed): what happened, or None. The boards send
        again what was not acknowledged, so nothing is lost; while it was down their status lines said so."""
        process = self.broker.process if self.broker is not None else None
        if process is None or process.poll() is None:
            return None
        code = process.returncode
        self.broker.start()  # type: ignore[union-attr]
        return f"the broker (mosquitto) stopped (exit status {code}): started again"

    def stop(self) -> None:
        self.web_thread.stop()
        self.server.stop()
        if self.broker is not None:
            self.broker.stop()
        self.store.close()

    def board_command(self, board: str = "1") -> str:
        """What a board's operator types (shown by `companion serve`)."""
        url = self.url
        host = url.host
        if self.options.listen:
            host = (lan_addresses() or ["THIS-MACHINE"])[0]
        scheme = "mqtts" if url.tls else "mqtt"
        token = self.folder / "tokens" / f"board-{board}.token"
        return (f"companion run --club {scheme}://{host}:{url.port}/{url.event} --board {board} "
                f"--token-file {token}")
