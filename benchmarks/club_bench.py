"""Club mode under load and faults: simulated boards replaying real matches through a real Mosquitto to the
server (`companion serve` in a process of its own, SQLite), with a browser's event stream open on the room page.

    python benchmarks/club_bench.py [--boards 200] [--speed 20] [--steady 60] [--faults 60]

Each board is a `Recorder` (journal fsynced per line, as at a real table) and a `Publisher`; boards run ten to a
worker process. A board plays its match at `--speed` times a live pace of one observation every
`--observation-seconds` (4 s: a roll, then the board read after the play). Measured:

- latency, board to page: from the moment an observation is in the board's journal to the moment the room page's
  server-sent event carrying it is read by the client (the steady phase, without faults, is the headline);
- the server's and Mosquitto's CPU (share of one core) and resident memory, sampled every second;
- then faults at random moments: kill -9 of the server, of the broker and of random worker processes (ten boards
  each), each restarted after 1-3 s. At the end every board's journal is compared with what the database holds:
  lines lost, lines stored twice, lines that differ, and the server's referee's disagreements with the boards.

The machine's two cores are shared by the boards, the broker, the server and the browser stand-in, so the figures
are those of the whole club on one laptop: a real club spreads the boards over their own machines.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
MATCHES = Path("/work/shared/data/matches")
EVENT = "bench"


# -- a worker: ten boards ---------------------------------------------------------------------------------------


def _match_files() -> list[Path]:
    return sorted(p for p in MATCHES.iterdir() if p.suffix in (".txt", ".mat", ".sgf"))


def _load(path: Path):
    from companion.record.recorder import load_any

    recorder, _ = load_any(path)
    return recorder.header, list(recorder.observations)


def worker(args: argparse.Namespace) -> int:
    from companion.club.publisher import Publisher
    from companion.club.topics import ClubURL
    from companion.record.recorder import Recorder

    # at a club each board is its own machine: here the boards share the server's two cores, so they yield to it
    # (and to the broker) rather than starve it, as the scheduler would otherwise share the cores out evenly
    os.nice(args.nice)
    folder = Path(args.folder)
    files = _match_files()
    url = ClubURL.parse(args.url)
    spacing = args.observation_seconds / args.speed
    stop = folder / "stop"
    rng = random.Random(args.boards_of)
    boards = []

    def play(recorder, observations, publisher, times, first: float) -> None:
        # a thread per board, as each board is its own machine: one board's fsync does not hold up the others
        due = first
        while not stop.exists():
            delay = due - time.time()
            if delay > 0:
                time.sleep(min(delay, 0.5))
                continue
            k = len(recorder.observations)
            if k >= len(observations):
                return  # this board's match is over
            recorder.observe(observations[k])
            times.write(f"{k + 1} {time.time():.6f}\n")  # line k+1 of the journal is in it now
            publisher.wake()
            due = max(due + spacing, time.time() - spacing)  # behind: catch up a little, not in a burst

    for name in args.boards_of.split(","):
        journal = folder / "boards" / f"board-{name}.jsonl"
        match = None
        for offset in range(len(files)):  # board N plays match N; a file the reader refuses passes to the next
            try:
                match = _load(files[(int(name) + offset) % len(files)])
                break
            except Exception:
                continue
        header, observations = match
        recorder = Recorder.resume(journal) if journal.exists() else Recorder.create(journal, header)
        password = (folder / "tokens" / f"board-{name}.token").read_text().strip()
        # woken by the board's thread after each line, so it need not poll the journal 50 times a second
        publisher = Publisher(recorder.journal, url, name, password=password, poll=0.25).start()
        times = open(folder / "times" / f"board-{name}.txt", "a", buffering=1)
        thread = threading.Thread(target=play, args=(recorder, observations, publisher, times,
                                                     time.time() + rng.uniform(0, spacing)), daemon=True)
        boards.append((recorder, publisher, times, thread))
    for *_, thread in boards:
        thread.start()
    while not stop.exists():
        time.sleep(0.2)
    for *_, thread in boards:
        thread.join()
    deadline = time.time() + args.flush
    for _, publisher, _, _ in boards:
        publisher.flush(max(0.1, deadline - time.time()))
    waiting = sum(publisher.status().waiting for _, publisher, _, _ in boards)
    for recorder, publisher, times, _ in boards:
        publisher.stop()
        recorder.close()
        times.close()
    print(json.dumps({"waiting": waiting}), flush=True)
    return 0


# -- measuring ----------------------------------------------------------------------------------------------------


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError):
        return float("nan")


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


class Sampler(threading.Thread):
    """CPU share and memory of named processes, once a second (pids looked up each time: they are restarted)."""

    def __init__(self, pids) -> None:
        super().__init__(daemon=True)
        self.pids, self.samples = pids, {}
        self.stop = threading.Event()
        self.phase = "steady"

    def run(self) -> None:
        last: dict[str, tuple[int, float, float]] = {}
        while not self.stop.wait(1.0):
            for name, pid in self.pids().items():
                if pid is None:
                    continue
                cpu, now = _cpu_seconds(pid), time.monotonic()
                prev = last.get(name)
                if prev is not None and prev[0] == pid and cpu == cpu and prev[1] == prev[1]:  # not NaN: alive
                    share = (cpu - prev[1]) / (now - prev[2])
                    self.samples.setdefault((name, self.phase), []).append((share, _rss_mb(pid)))
                last[name] = (pid, cpu, now)


class PageReader(threading.Thread):
    """The room page's event stream, as a browser reads it: (time read, board, line number) of every update."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port, self.seen, self.stop, self.reconnects = port, [], threading.Event(), 0

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                connection.request("GET", "/events")
                response = connection.getresponse()
                while not self.stop.is_set():
                    line = response.fp.readline()
                    if not line:
                        break
                    if line.startswith(b"data: "):
                        message = json.loads(line[6:])
                        if message["board"]:
                            self.seen.append((time.time(), message["board"], message["n"], message["sent"]))
            except (OSError, http.client.HTTPException, ValueError):
                pass
            self.reconnects += 1
            self.stop.wait(0.3)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


# -- the run ------------------------------------------------------------------------------------------------------


def _page_answers(port: int) -> bool:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        connection.request("GET", "/api/boards")
        return connection.getresponse().status == 200
    except OSError:
        return False


def main(args: argparse.Namespace) -> int:
    from companion.club.broker import BrokerConfig, LocalBroker, free_port, write_private
    from companion.club.store import Store
    from companion.club.topics import SERVER_USER
    from companion.record.journal import record_lines

    folder = Path(tempfile.mkdtemp(prefix="club-bench-", dir="/tmp"))
    os.chmod(folder, 0o755)
    for sub in ("boards", "times", "tokens"):
        (folder / sub).mkdir()
    names = [str(n) for n in range(1, args.boards + 1)]
    broker = LocalBroker(BrokerConfig(folder / "broker", EVENT, tuple(names), free_port())).start()
    for name in names:
        broker.token_file(name, folder / "tokens")
    write_private(folder / "server.token", broker.passwords[SERVER_USER] + "\n")
    url, web_port, db = broker.url(), free_port(), str(folder / "club.db")
    rng = random.Random(args.seed)

    def start_server() -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "companion.cli", "serve", "--broker", url, "--token-file",
                                 str(folder / "server.token"), "--db", db, "--folder", str(folder / "server"),
                                 "--port", str(web_port), "--referee-only"], cwd=ROOT,
                                stdout=open(folder / "server.log", "a"), stderr=subprocess.STDOUT)

    groups = [names[i:i + args.per_worker] for i in range(0, len(names), args.per_worker)]

    def start_worker(group: list[str]) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, __file__, "--worker", "--boards-of", ",".join(group), "--folder",
                                 str(folder), "--url", url, "--speed", str(args.speed), "--observation-seconds",
                                 str(args.observation_seconds), "--flush", str(args.flush), "--nice",
                                 str(args.nice)], cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=open(folder / "workers.log", "a"), text=True)

    server = start_server()
    deadline = time.time() + 60
    while not _page_answers(web_port):
        if time.time() > deadline or server.poll() is not None:
            print((folder / "server.log").read_text()[-2000:])
            raise SystemExit("the server did not start")
        time.sleep(0.2)
    reader = PageReader(web_port)
    reader.start()
    workers = [start_worker(g) for g in groups]
    sampler = Sampler(lambda: {"server": server.pid, "mosquitto": broker.process.pid if broker.process else None})
    sampler.start()
    print(f"{args.boards} boards in {len(workers)} worker processes (nice {args.nice}), {args.speed}x a live pace of one observation "
          f"every {args.observation_seconds} s; steady {args.steady} s, faults {args.faults} s; in {folder}",
          flush=True)
    t0 = time.time()
    time.sleep(args.steady)
    fault_start = time.time()
    sampler.phase = "faults"
    faults: list[str] = []
    kinds: list[str] = []
    while time.time() - fault_start < args.faults:
        time.sleep(rng.uniform(4, 10))
        if not kinds:  # every kind of fault in each round of three, in a random order
            kinds = rng.sample(["server", "broker", "boards"], 3)
        victim = kinds.pop()
        if victim == "server":
            server.send_signal(signal.SIGKILL)
            server.wait()
            time.sleep(rng.uniform(1, 3))
            server = start_server()
        elif victim == "broker":
            broker.kill()
            time.sleep(rng.uniform(1, 3))
            broker.start()
        else:
            i = rng.randrange(len(workers))
            workers[i].send_signal(signal.SIGKILL)
            workers[i].wait()
            time.sleep(rng.uniform(1, 3))
            workers[i] = start_worker(groups[i])
            victim = f"boards {groups[i][0]}-{groups[i][-1]}"
        faults.append(f"{time.time() - t0:.0f}s kill -9 {victim}")
        print("  " + faults[-1], flush=True)
    load_end = time.time()
    sampler.phase = "drain"
    (folder / "stop").touch()
    waiting = 0
    for w in workers:
        out, _ = w.communicate(timeout=args.flush + 120)
        lines = [line for line in out.splitlines() if line.startswith("{")]
        waiting += json.loads(lines[-1])["waiting"] if lines else 10**9
    drained = time.time()
    sampler.stop.set()
    reader.stop.set()
    server.send_signal(signal.SIGTERM)
    server.wait(30)
    broker.stop()

    # -- every journal against the database --------------------------------------------------------------------
    store = Store(db)
    lost = doubled = differ = total = 0
    with store.engine.connect() as c:
        import sqlalchemy as sa

        rows = c.execute(sa.text("SELECT board, COUNT(*), COUNT(DISTINCT n) FROM club_entries GROUP BY board")).all()
    counts = {r[0]: (r[1], r[2]) for r in rows}
    flags = sum(len(m.disagreements) for m in store.matches(EVENT))
    times: dict[tuple[str, int], float] = {}
    for name in names:
        raw = (folder / "boards" / f"board-{name}.jsonl").read_bytes()
        journal = [json.loads(line) for line in record_lines(raw)]
        stored = store.lines(EVENT, name)
        total += len(journal)
        lost += max(0, len(journal) - len(stored))
        doubled += counts.get(name, (0, 0))[0] - counts.get(name, (0, 0))[1]
        differ += sum(1 for a, b in zip(journal, stored) if a != b) + max(0, len(stored) - len(journal))
        for row in (folder / "times" / f"board-{name}.txt").read_text().split("\n"):
            try:
                n, t = row.split()
                times[(name, int(n))] = float(t)
            except ValueError:  # empty, or cut short when its worker was killed
                continue
    store.close()

    # -- latency, board to page ------------------------------------------------------------------------------------
    shown: dict[str, int] = {}
    steady, overall = [], []
    to_broker, to_page = [], []  # the steady phase's latency split at the board's publish (the newest line only)
    for seen_at, name, n, sent in reader.seen:
        t = times.get((name, n))
        if t is not None and t < fault_start and sent > 0:
            to_broker.append(sent - t)
            to_page.append(seen_at - sent)
        for k in range(shown.get(name, 0) + 1, n + 1):
            t = times.get((name, k))
            if t is not None:
                (steady if t < fault_start else overall).append(seen_at - t)
        shown[name] = max(shown.get(name, 0), n)
    overall += steady

    def usage(name: str, phase: str) -> str:
        s = sampler.samples.get((name, phase), [])
        if not s:
            return "n/a"
        cpu = [x[0] * 100 for x in s]
        return (f"CPU mean {statistics.mean(cpu):.0f}% / peak {max(cpu):.0f}% of a core, "
                f"RSS peak {max(x[1] for x in s):.0f} MB")

    observed = len(times)
    print()
    target = args.boards * args.speed / args.observation_seconds
    print(f"boards {args.boards}, observations journalled {observed} "
          f"({observed / (load_end - t0):.0f}/s over {load_end - t0:.0f} s; the pace asks {target:.0f}/s "
          f"while every match lasts, and short matches end), "
          f"journal lines {total}")
    print(f"latency board -> page, steady ({len(steady)} lines): p50 {_percentile(steady, .5) * 1000:.0f} ms, "
          f"p95 {_percentile(steady, .95) * 1000:.0f} ms, max {max(steady, default=float('nan')) * 1000:.0f} ms")
    print(f"  of which journal -> published by the board: p50 {_percentile(to_broker, .5) * 1000:.0f} ms, "
          f"p95 {_percentile(to_broker, .95) * 1000:.0f} ms; published -> page: "
          f"p50 {_percentile(to_page, .5) * 1000:.0f} ms, p95 {_percentile(to_page, .95) * 1000:.0f} ms")
    print(f"latency board -> page, with faults ({len(overall)} lines): p50 {_percentile(overall, .5) * 1000:.0f} ms, "
          f"p95 {_percentile(overall, .95) * 1000:.0f} ms")
    for name in ("server", "mosquitto"):
        print(f"{name:<9} steady: {usage(name, 'steady')}; faults: {usage(name, 'faults')}")
    print(f"faults: {len(faults)} ({', '.join(f.split('kill -9 ')[1] for f in faults)})")
    print(f"after the faults every board had sent everything in {drained - load_end:.0f} s "
          f"(lines still waiting: {waiting})")
    print(f"journal vs database: {lost} lost, {doubled} duplicated, {differ} different, "
          f"{flags} referee disagreements; page stream reconnects {reader.reconnects - 1}")
    ok = lost == 0 and doubled == 0 and differ == 0 and waiting == 0 and flags == 0
    if args.keep:
        print(f"kept {folder}")
    else:
        shutil.rmtree(folder, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=200)
    parser.add_argument("--speed", type=float, default=20.0)
    parser.add_argument("--observation-seconds", type=float, default=4.0, help="live pace: seconds an observation")
    parser.add_argument("--steady", type=float, default=60.0, help="seconds of load without faults")
    parser.add_argument("--faults", type=float, default=60.0, help="seconds of load with faults")
    parser.add_argument("--per-worker", type=int, default=10, help="boards in one worker process")
    parser.add_argument("--flush", type=float, default=180.0, help="seconds a worker waits at the end to send all")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--nice", type=int, default=10, help="the boards' processes' niceness (0: as the server)")
    parser.add_argument("--keep", action="store_true", help="keep the folder (journals, database, logs)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--boards-of", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    sys.exit(worker(arguments) if arguments.worker else main(arguments))
