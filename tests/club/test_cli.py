"""`companion serve` and `companion run --club` as a director and a board's operator type them: a club night on
one machine from two commands; TLS to the broker; the board's status line; user errors said plainly."""

from __future__ import annotations

import json
import os
import signal
import ssl
import subprocess
import sys
import urllib.request
from importlib.resources import files
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from companion.cli import main
from companion.club.broker import BrokerConfig, LocalBroker, free_port
from companion.club.publisher import Publisher
from companion.club.server import ClubServer
from companion.club.topics import SERVER_USER, ClubURL, board_user
from companion.record.journal import Journal
from companion.tui.app import CompanionApp
from tests.conftest import ctrl_c_as_at_a_terminal

from .conftest import BOARDS, EVENT, journal_lines, listening_addresses, make_journal, wait_for

DEMO = str(files("companion") / "data" / "demo.mat")


def _companion(*args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "companion.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, **kw)


def _page_answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2):
            return True
    except OSError:
        return False


def test_a_club_night_on_one_machine_from_two_commands(tmp_path):
    web, mqtt = free_port(), free_port()
    folder = tmp_path / "night"
    serve = _companion("serve", "--event", "night", "--boards", "2", "--folder", str(folder), "--port", str(web),
                       "--mqtt-port", str(mqtt), "--referee-only")
    try:
        wait_for(lambda: _page_answers(f"http://127.0.0.1:{web}/") or serve.poll() is not None, 30, "the page")
        assert serve.poll() is None, serve.communicate(timeout=10)[0]  # what the server said as it stopped
        # nothing listens beyond this machine without --listen: the page nor the broker
        assert listening_addresses(web) == {"127.0.0.1"} and listening_addresses(mqtt) == {"127.0.0.1"}
        journal = tmp_path / "board1.jsonl"
        board = _companion("run", "--replay", DEMO, "--no-ui", "--journal", str(journal),
                           "--club", f"mqtt://127.0.0.1:{mqtt}/night", "--board", "1",
                           "--token-file", str(folder / "tokens" / "board-1.token"))
        out, _ = board.communicate(timeout=120)
        assert board.returncode == 0, out
        assert out.strip().splitlines()[-1] == "club: connected, all sent"
        with urllib.request.urlopen(f"http://127.0.0.1:{web}/api/boards", timeout=10) as r:
            boards = json.loads(r.read())["boards"]
        assert [b["board"] for b in boards] == ["1"]
        assert boards[0]["n"] == len(journal_lines(journal)) - 1 and boards[0]["over"]
        assert (folder / "director.token").stat().st_mode & 0o077 == 0
    finally:
        serve.send_signal(signal.SIGTERM)
        out, _ = serve.communicate(timeout=30)
    assert serve.returncode == 0, out
    assert f"page http://127.0.0.1:{web}/" in out and "this machine only" in out
    assert "--board 1 --token-file" in out
    assert f"stored {len(journal_lines(journal))} lines" in out and "0 refused" in out


def test_a_board_reaches_a_tls_broker_with_the_clubs_own_ca(tmp_path, store, demo_match):
    folder = tmp_path / "tls"
    folder.mkdir()
    cert, key = folder / "broker.crt", folder / "broker.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                    "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key),
                    "-out", str(cert)], check=True, capture_output=True)
    os.chmod(key, 0o644)  # mosquitto, dropped to its own user, must read it; the folder is a test's
    broker = LocalBroker(BrokerConfig(folder, EVENT, BOARDS, free_port(), certfile=cert, keyfile=key)).start()
    header, observations = demo_match
    journal = tmp_path / "b1.jsonl"
    make_journal(journal, header, observations[:30]).close()
    url = ClubURL.parse(broker.url())
    assert url.tls
    server = ClubServer(store, url, password=broker.passwords[SERVER_USER], ca=str(cert)).start()
    sent = Journal.reopen(journal)[0]  # a finished match, sent on its own
    good = Publisher(sent, url, "1", password=broker.passwords[board_user("1")], ca=cert).start()
    try:
        assert good.flush(20), good.status()
        assert store.lines(EVENT, "1") == journal_lines(journal)
        # a board that does not know the club's CA refuses the broker rather than send its match to anyone
        doubter = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        doubter.tls_set(cert_reqs=ssl.CERT_REQUIRED)
        with pytest.raises(ssl.SSLCertVerificationError):
            doubter.connect(url.host, url.port)
        # and the broker speaks nothing but TLS on that port
        plain = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        plain.username_pw_set(board_user("2"), broker.passwords[board_user("2")])
        answers: list[str] = []
        plain.on_connect = lambda *_: answers.append("connected")
        plain.on_disconnect = lambda *_: answers.append("dropped")
        plain.connect(url.host, url.port)
        plain.loop_start()
        wait_for(lambda: answers, what="the broker's answer to plain MQTT")
        plain.loop_stop()
        assert answers[0] == "dropped"
    finally:
        good.stop()
        sent.close()
        server.stop()
        broker.stop()


async def test_the_status_line_shows_the_link_and_what_waits(tmp_path, demo_match):
    header, observations = demo_match
    journal = tmp_path / "b.jsonl"
    recorder = make_journal(journal, header, observations[:6])
    nobody = ClubURL.parse(f"mqtt://127.0.0.1:{free_port()}/{EVENT}")  # no broker there: the Wi-Fi is down
    club = Publisher(recorder.journal, nobody, "5", password="x").start()
    app = CompanionApp(recorder, mode="record", club=club)
    try:
        async with app.run_test(size=(130, 48)) as pilot:
            wait_for(lambda: club.status().waiting == 7, what="the journal read")
            app.refresh_status()
            await pilot.pause()
            status = str(app.query_one("#status").render())
            assert "Club   board 5: offline, 7 waiting" in status
    finally:
        club.stop()
        recorder.close()


def test_club_options_are_checked_before_the_match_starts(tmp_path, capsys):
    journal = str(tmp_path / "j.jsonl")
    cases = [(["--club", "mqtt://h/e"], "--board"),
             (["--club", "mqtt://h/e", "--board", "3"], "password"),
             (["--club", "http://h/e", "--board", "3", "--password", "p"], "mqtt://"),
             (["--club", "mqtt://h/e", "--board", "a/b", "--password", "p"], "board"),
             (["--board", "3"], "--club"),
             (["--club", "mqtt://h/e", "--board", "3", "--token-file", str(tmp_path / "none")], "cannot read")]
    for extra, said in cases:
        assert main(["run", "--no-ui", "--journal", journal, "--replay", DEMO, *extra]) == 2
        assert said in capsys.readouterr().err
    assert not Path(journal).exists()  # nothing was started


async def test_the_timers_ticking_during_shutdown_do_not_fail_the_exit(tmp_path, demo_match, monkeypatch):
    """The club status (every second) and the match clock (five times a second) are refreshed by timers; a tick
    that comes after the screen is gone does nothing. The timers' own callbacks are called here after the exit."""
    from textual.css.query import NoMatches

    from companion.rules.clock import MatchClock

    header, observations = demo_match
    recorder = make_journal(tmp_path / "b.jsonl", header, observations[:6])
    nobody = ClubURL.parse(f"mqtt://127.0.0.1:{free_port()}/{EVENT}")
    club = Publisher(recorder.journal, nobody, "5", password="x").start()
    app = CompanionApp(recorder, mode="referee", club=club, clock=MatchClock(delay=12, reserve=120))
    ticks = []
    set_interval = app.set_interval
    monkeypatch.setattr(app, "set_interval", lambda every, callback, **kw: (ticks.append(callback),
                                                                             set_interval(every, callback, **kw))[1])
    try:
        async with app.run_test(size=(130, 48)) as pilot:
            await pilot.pause()
            for tick in ticks:
                tick()  # while the screen is there, each refreshes it
        assert len(ticks) == 2
        with pytest.raises(NoMatches):  # what a late tick met
            app.refresh_status()
        for tick in ticks:
            tick()
    finally:
        club.stop()
        recorder.close()


def test_a_broker_that_dies_is_started_again_and_the_boards_catch_up(tmp_path, demo_match):
    """A club trial: mosquitto killed with -9 under `serve` stayed a zombie; the page went stale, unsaid."""
    from companion.club.serve import ClubNight, ServeOptions

    header, observations = demo_match
    night = ClubNight(ServeOptions(tmp_path / "night", EVENT, boards=1, web_port=free_port(),
                                   mqtt_port=free_port())).start()
    board = make_journal(tmp_path / "b.jsonl", header, observations[:10])
    publisher = Publisher(board.journal, night.url, "1", password=night.broker.passwords[board_user("1")],
                          resend_after=0.5).start()
    try:
        assert publisher.flush(20), publisher.status()
        assert night.keep_broker() is None  # alive: nothing to do
        night.broker.process.kill()
        night.broker.process.wait()
        for observation in observations[10:20]:
            board.observe(observation)
        said = night.keep_broker()
        assert said is not None and "started again" in said and night.broker.process.poll() is None
        assert publisher.flush(30), publisher.status()
        assert night.store.lines(EVENT, "1") == journal_lines(tmp_path / "b.jsonl")
    finally:
        publisher.stop()
        board.close()
        night.stop()


def test_ctrl_c_stops_serve_without_a_traceback(tmp_path):
    """A club trial: Ctrl-C on `serve` printed 'Process SpawnProcess-1: ... KeyboardInterrupt' (the engine's
    child, in the same process group)."""
    serve = _companion("serve", "--event", "night", "--boards", "1", "--folder", str(tmp_path / "n"), "--port",
                       str(free_port()), "--mqtt-port", str(free_port()), start_new_session=True,
                       preexec_fn=ctrl_c_as_at_a_terminal)
    said = []
    try:
        for line in serve.stdout:  # serving (the engine's child may still be starting: Ctrl-C reaches it too)
            said.append(line)
            if line.startswith("a board joins with"):
                break
    finally:
        os.killpg(serve.pid, signal.SIGINT)  # as the terminal sends it: to the whole group
        out = "".join(said) + serve.communicate(timeout=60)[0]
    assert "Traceback" not in out and "KeyboardInterrupt" not in out, out
    assert "stored 0 lines" in out


def test_a_database_that_cannot_be_opened_is_named_without_its_password():
    from companion.club.store import Store
    from companion.errors import ClubError

    with pytest.raises(ClubError) as error:
        Store(f"postgresql://club:s3cret-pw@127.0.0.1:{free_port()}/club")
    assert "s3cret-pw" not in str(error.value) and "club:***@127.0.0.1" in str(error.value)


def test_the_rooms_addresses_are_this_machines_reachable_ones(monkeypatch):
    """A club trial: `--listen` printed 127.0.0.1 and THIS-MACHINE, which no phone in the room can use."""
    import ipaddress
    import socket

    from companion.club import serve

    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: [(2, 2, 17, "", ("192.168.1.23", 0)),
                                                                  (2, 2, 17, "", ("127.0.1.1", 0))])
    found = serve.lan_addresses()
    assert "192.168.1.23" in found and "127.0.1.1" not in found
    assert all(not ipaddress.IPv4Address(a).is_loopback for a in found) and len(set(found)) == len(found)
