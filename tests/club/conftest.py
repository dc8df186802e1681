"""Fixtures of the club tests: a real Mosquitto (started in a temp folder on a free port with the project's own
configuration), a store, and boards' journals made by replaying a real match."""

from __future__ import annotations

import time
from importlib.resources import files
from pathlib import Path

import pytest

from companion.club.broker import BrokerConfig, LocalBroker, free_port
from companion.club.store import Store
from companion.club.topics import ClubURL
from companion.record.journal import JournalHeader
from companion.record.recorder import Recorder, load_any

EVENT = "clubnight"
BOARDS = ("1", "2", "3")


@pytest.fixture
def broker(tmp_path: Path):
    b = LocalBroker(BrokerConfig(tmp_path / "broker", EVENT, BOARDS, free_port())).start()
    yield b
    b.stop()


@pytest.fixture
def url(broker: LocalBroker) -> ClubURL:
    return ClubURL.parse(broker.url())


@pytest.fixture
def store(tmp_path: Path):
    s = Store(str(tmp_path / "club.db"))
    yield s
    s.close()


@pytest.fixture(scope="session")
def demo_match():
    """The bundled 7-point match: its header and every observation, as a camera or dice cup would give them."""
    recorder, _ = load_any(Path(str(files("companion") / "data" / "demo.mat")))
    return recorder.header, list(recorder.observations)


def make_journal(path: Path, header: JournalHeader, observations) -> Recorder:
    recorder = Recorder.create(path, header)
    for observation in observations:
        recorder.observe(observation)
    return recorder


def wait_for(condition, timeout: float = 10.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def journal_lines(path: Path) -> list[dict]:
    """The header and entries of a journal: what the server must store (its acknowledgement lines are not)."""
    import json

    from companion.record.journal import record_lines

    return [json.loads(line) for line in record_lines(path.read_bytes())]


def listening_addresses(port: int) -> set[str]:
    """The local addresses on which something listens on TCP `port`, as the kernel reports them."""
    import ipaddress

    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            local, state = row.split()[1], row.split()[3]
            address, hex_port = local.split(":")
            if state != "0A" or int(hex_port, 16) != port:  # 0A: LISTEN
                continue
            raw = bytes.fromhex(address)
            if len(raw) == 4:
                found.add(str(ipaddress.IPv4Address(raw[::-1])))
            else:  # four little-endian 32-bit words
                words = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
                found.add(str(ipaddress.IPv6Address(words)))
    return found


def feed(server, board: str, lines: list[dict], start: int = 0) -> None:
    """Hand a board's journal lines to the server as the broker would (the web tests need no broker)."""
    from companion.club.topics import JournalMessage, journal_topic

    for n, line in enumerate(lines[start:], start=start):
        outcome = server.handle(journal_topic(server.event, board), JournalMessage(board, n, line, time.time()).encode())
        assert outcome == "stored", outcome


@pytest.fixture(scope="session")
def postgres_url():
    """A real PostgreSQL (Debian's), made with initdb in a temp folder and started on a free port; its URL.
    initdb refuses to run as root, so under root (CI containers) it runs as the `postgres` user."""
    import glob
    import os
    import shutil
    import subprocess
    import tempfile

    from companion.club.broker import free_port

    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    assert found, "PostgreSQL is not installed: apt-get install postgresql"
    bin_dir = Path(found[-1]).parent
    as_user: list[str] = []
    folder = Path(tempfile.mkdtemp(prefix="club-pg-", dir="/tmp"))  # /tmp: reachable by the postgres user
    if os.geteuid() == 0:
        as_user = ["runuser", "-u", "postgres", "--"]
        shutil.chown(folder, "postgres")
    password = "club-test-password"
    pwfile = folder / "pw"
    pwfile.write_text(password + "\n")
    if as_user:
        shutil.chown(pwfile, "postgres")
    data, port = folder / "data", free_port()
    subprocess.run([*as_user, str(bin_dir / "initdb"), "-D", str(data), "-U", "club", f"--pwfile={pwfile}",
                    "--auth=scram-sha-256", "-E", "UTF8"], check=True, capture_output=True)
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=on"
    subprocess.run([*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(folder / "log"), "-o", options,
                    "-w", "start"], check=True, capture_output=True)
    try:
        yield f"postgresql://club:{password}@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
