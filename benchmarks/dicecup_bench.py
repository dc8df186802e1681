"""Dice cup latency: from the software cup sending a roll to the driver handing out its `DiceReading`, over a
pseudo-terminal. Printed beside it, the raw pty round trip of one line (the floor any driver could reach).
Target: at most 50 ms. Run: python benchmarks/dicecup_bench.py
"""

from __future__ import annotations

import os
import select
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.devices import DiceCupDriver, SoftwareDiceCup  # noqa: E402
from companion.referee import DiceReading  # noqa: E402


def raw_pty_latency(samples: int) -> list[float]:
    master, slave = os.openpty()
    times = []
    for _ in range(samples):
        t = time.perf_counter()
        os.write(master, b"ROLL 1 6 5*0000\n")
        select.select([slave], [], [], 1.0)
        os.read(slave, 64)
        times.append(time.perf_counter() - t)
    os.close(master)
    os.close(slave)
    return times


def driver_latency(samples: int) -> list[float]:
    times = []
    with SoftwareDiceCup(seed=1, heartbeat_interval=0.5, boot_time=0.05) as cup:
        driver = DiceCupDriver(cup.path)
        end = time.monotonic() + 2
        while driver.hello is None and time.monotonic() < end:
            driver.poll(0.02)
        for _ in range(samples):
            t = time.perf_counter()
            cup.roll()
            got = None
            while got is None and time.perf_counter() - t < 1.0:
                got = next((i for i in driver.poll(0.02) if isinstance(i, DiceReading) and i.valid), None)
            times.append(time.perf_counter() - t)
            while not cup.acknowledged:
                driver.poll(0.01)
        driver.close()
    return times


def main(samples: int = 200) -> None:
    raw = raw_pty_latency(samples)
    ours = driver_latency(samples)
    print(f"samples: {samples}")
    print(f"{'':36}{'median':>10}{'p95':>10}{'worst':>10}")
    for name, times in (("raw pty line (reference)", raw), ("roll -> DiceReading (driver)", ours)):
        q = statistics.quantiles(times, n=20)
        print(f"{name:36}{statistics.median(times) * 1e3:>8.2f}ms{q[18] * 1e3:>8.2f}ms{max(times) * 1e3:>8.2f}ms")
    print(f"target: at most 50 ms -> median {statistics.median(ours) * 1e3:.2f} ms, worst {max(ours) * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
