"""A local Mosquitto for a one-machine club night (and for the tests): the project writes its configuration,
with a user and password per board and topic ACLs so that a board can publish only its own journal, and starts it.

Nothing listens beyond localhost unless asked (`listen`). Passwords are random, kept in `credentials.json`
(mode 0600) in the broker's folder; `token_file(board)` writes the one file a board needs.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from companion.club.topics import MAX_PAYLOAD, SERVER_USER, board_user, check_name
from companion.errors import ClubError


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


@dataclass(frozen=True, slots=True)
class BrokerConfig:
    folder: Path
    event: str
    boards: tuple[str, ...]
    port: int
    listen: str = "127.0.0.1"
    certfile: Path | None = None
    """With `keyfile`: the listener speaks TLS only (mqtts://)."""
    keyfile: Path | None = None


def acl_text(event: str, boards: tuple[str, ...]) -> str:
    """The server reads every journal and writes the acks; a board writes its journal and reads its acks only."""
    lines = [f"user {SERVER_USER}", f"topic read club/{event}/+/journal", f"topic write club/{event}/+/ack", ""]
    for board in boards:
        lines += [f"user {board_user(board)}", f"topic write club/{event}/{board}/journal",
                  f"topic read club/{event}/{board}/ack", ""]
    return "\n".join(lines)


def write_config(config: BrokerConfig) -> dict[str, str]:
    """Write mosquitto.conf, the password file (hashed by mosquitto_passwd) and the ACL file; returns the
    passwords by user. Existing passwords are kept, so boards' token files stay valid across restarts."""
    check_name("event", config.event)
    for board in config.boards:
        check_name("board", board)
    folder = config.folder
    folder.mkdir(parents=True, exist_ok=True)
    store = folder / "credentials.json"
    passwords: dict[str, str] = json.loads(store.read_text()) if store.exists() else {}
    for user in [SERVER_USER] + [board_user(b) for b in config.boards]:
        passwords.setdefault(user, secrets.token_urlsafe(18))
    write_private(store, json.dumps(passwords, indent=1))
    passwd = folder / "passwd"
    write_private(passwd, "".join(f"{u}:{p}\n" for u, p in passwords.items()))
    tool = shutil.which("mosquitto_passwd")
    if tool is None:
        raise ClubError("mosquitto_passwd not found: install Debian's mosquitto (apt-get install mosquitto)")
    subprocess.run([tool, "-U", str(passwd)], check=True, capture_output=True)  # hash them all in one go
    (folder / "acl").write_text(acl_text(config.event, config.boards))
    (folder / "data").mkdir(exist_ok=True)
    (folder / "mosquitto.conf").write_text("\n".join([
        f"listener {config.port} {config.listen}",
        *([f"certfile {config.certfile}", f"keyfile {config.keyfile}"] if config.certfile else []),
        "allow_anonymous false",
        f"password_file {passwd}",
        f"acl_file {folder / 'acl'}",
        "persistence true",
        f"persistence_location {folder / 'data'}/",
        "autosave_interval 5",
        f"log_dest file {folder / 'mosquitto.log'}",
        "log_type error", "log_type warning", "log_type notice",
        # the server refuses (and logs) messages over MAX_PAYLOAD itself; the broker drops the absurd ones
        f"max_packet_size {4 * MAX_PAYLOAD}",
        "max_inflight_messages 100",
        "max_queued_messages 100000",
        # root (CI, a container) keeps root only when the folder is out of the mosquitto user's reach
        *(["user root"] if os.geteuid() == 0 and not _reachable(folder) else []),
        "",
    ]))
    if os.geteuid() == 0 and _has_user("mosquitto"):
        # mosquitto started by root drops to its own user, which must reach and read these files
        for path in [folder, *folder.iterdir()]:
            shutil.chown(path, user="mosquitto")
    return passwords


def _reachable(folder: Path) -> bool:
    """Every folder above `folder` can be entered by other users."""
    return all(p.stat().st_mode & 0o001 for p in folder.resolve().parents)


def _has_user(name: str) -> bool:
    import pwd

    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)


class LocalBroker:
    """A Mosquitto process with the configuration above."""

    def __init__(self, config: BrokerConfig) -> None:
        self.config = config
        self.passwords = write_config(config)
        self.process: subprocess.Popen | None = None

    def url(self, user: str | None = None) -> str:
        host = "127.0.0.1" if self.config.listen in ("0.0.0.0", "::") else self.config.listen
        scheme = "mqtts" if self.config.certfile else "mqtt"
        return f"{scheme}://{host}:{self.config.port}/{self.config.event}"

    def token_file(self, board: str, folder: Path | None = None) -> Path:
        """A file holding the board's password, for `companion run --club URL --board N --token-file F`."""
        path = (folder or self.config.folder / "tokens") / f"board-{board}.token"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_private(path, self.passwords[board_user(board)] + "\n")
        return path

    def start(self, timeout: float = 15.0) -> LocalBroker:
        """Mosquitto started and listening. The wait is long: on a busy club laptop (or a CI machine with both cores
        taken) it has been slow to listen, and `companion serve` once stopped with exit status 2 before its page
        answered."""
        exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        if not Path(exe).exists():
            raise ClubError("mosquitto not found: install Debian's mosquitto (apt-get install mosquitto)")
        self.process = subprocess.Popen([exe, "-c", str(self.config.folder / "mosquitto.conf")],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode(errors="replace") if self.process.stderr else ""
                log = (self.config.folder / "mosquitto.log")
                raise ClubError(f"mosquitto stopped at once: {err.strip()} "
                                f"{log.read_text()[-500:] if log.exists() else ''}")
            try:
                with socket.create_connection(("127.0.0.1" if self.config.listen in ("0.0.0.0", "::")
                                               else self.config.listen, self.config.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        raise ClubError(f"mosquitto did not listen on port {self.config.port} within {timeout} s")

    def kill(self) -> None:
        """kill -9 (the benchmark's fault)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> LocalBroker:
        return self.start() if self.process is None else self

    def __exit__(self, *exc) -> None:
        self.stop()
