"""A UDP relay that loses datagrams: a damaged network for the live tests (Tests/e2e/test_live.py).

Forwards every datagram that arrives at --listen to --to, except a seeded random --drop fraction of
them, for at most --seconds (or until SIGINT/SIGTERM), then prints how many it forwarded and dropped.

Usage: lossy_udp_relay.py --listen 127.0.0.1:P1 --to 127.0.0.1:P2 [--drop 0.03] [--seed 1] [--seconds 30]
"""

import argparse
import random
import select
import signal
import socket
import sys
import time


def address(text):
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"'{text}' is not HOST:PORT")
    return host, int(port)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", type=address, required=True, help="HOST:PORT to receive on")
    parser.add_argument("--to", type=address, required=True, help="HOST:PORT to forward to")
    parser.add_argument("--drop", type=float, default=0.03, help="fraction of datagrams to drop (0 to 1)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=30.0, help="longest run")
    args = parser.parse_args()
    if not 0 <= args.drop <= 1:
        parser.error("--drop must lie in [0, 1]")
    if args.seconds <= 0:
        parser.error("--seconds must be positive")

    stopping = []
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, lambda *_: stopping.append(True))
    chance = random.Random(args.seed)
    incoming = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    incoming.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    incoming.bind(args.listen)
    outgoing = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    outgoing.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8 << 20)
    print(f"lossy_udp_relay: {args.listen[0]}:{args.listen[1]} -> {args.to[0]}:{args.to[1]}, dropping {args.drop:.1%} "
          f"(seed {args.seed}) for up to {args.seconds:g} s", flush=True)

    forwarded = dropped = refused = 0
    deadline = time.monotonic() + args.seconds
    while not stopping and (left := deadline - time.monotonic()) > 0:
        try:
            ready, _, _ = select.select([incoming], [], [], min(left, 0.2))
        except InterruptedError:
            continue
        if not ready:
            continue
        datagram = incoming.recv(65536)
        if chance.random() < args.drop:
            dropped += 1
            continue
        try:
            outgoing.sendto(datagram, args.to)
            forwarded += 1
        except OSError:
            # Nothing listens at --to (yet): lost, but not by choice.
            refused += 1
    print(f"lossy_udp_relay: forwarded {forwarded}, dropped {dropped}"
          + (f", {refused} could not be sent" if refused else ""), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
