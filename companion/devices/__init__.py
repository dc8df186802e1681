"""The electronic dice cup: its serial line protocol, the driver, port discovery, and a software cup."""

from companion.devices.driver import CupState, DiceCupDriver, Link, LinkStatus, find_cup_ports
from companion.devices.protocol import LineParser, crc16, encode, frame
from companion.devices.simulator import SoftwareDiceCup, fair_die

__all__ = [
    "CupState", "DiceCupDriver", "Link", "LinkStatus", "LineParser", "SoftwareDiceCup", "crc16", "encode",
    "fair_die", "find_cup_ports", "frame",
]
