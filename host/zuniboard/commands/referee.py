"""`zuni referee [BROKER_URL]`: the referee of remote games (docs/remote.md)."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from pathlib import Path
from types import FrameType

from zuniboard.errors import UsageError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "referee",
        help="referee remote games through an MQTT broker",
        description="Referee remote games (docs/remote.md): the authority on their moves, clocks and results.",
    )
    parser.add_argument(
        "broker",
        nargs="?",
        default=None,
        help="broker URL: mqtt://, mqtts://, ws://, wss:// (default: run the embedded broker on 127.0.0.1:1883)",
    )
    parser.add_argument(
        "--shard",
        default="a",
        help="K/N: the K-th of N referees sharing the games (0/4 ... 3/4; players need no option); "
        "or a name: a referee of its own (topics zuni/v1/NAME/...; its players give --shard NAME)",
    )
    parser.add_argument("--data", metavar="DIR", default=None, help="where the games are kept (default: the data dir)")
    parser.add_argument(
        "--listen", metavar="HOST:PORT", default="127.0.0.1:1883", help="the embedded broker's address (no BROKER)"
    )
    parser.add_argument(
        "--passwords",
        metavar="FILE",
        default=None,
        help="Mosquitto's password file: a user is added for each new game (docs/remote.md, per-game ACLs)",
    )
    parser.add_argument(
        "--mosquitto-pid",
        metavar="FILE",
        default=None,
        help="Mosquitto's pid_file: it is told to read --passwords again",
    )
    parser.set_defaults(func=run_referee)


def run_referee(args: argparse.Namespace) -> int:
    from zuniboard.remote.broker import BrokerError, EmbeddedBroker
    from zuniboard.remote.protocol import ProtocolError, remote_dir, shard_part
    from zuniboard.remote.service import RefereeService
    from zuniboard.remote.transport import BrokerUrlError, parse_url

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s", stream=sys.stderr)
    broker = None
    url_text = args.broker
    if url_text is None:
        host, _, port = args.listen.rpartition(":")
        if not port.isdigit():
            raise UsageError("--listen %r: HOST:PORT" % args.listen)
        broker = EmbeddedBroker(host or "127.0.0.1", int(port))
        try:
            broker.start()
        except BrokerError as exc:
            raise UsageError(str(exc))
        url_text = broker.url
        print("zuni referee: embedded broker on %s:%s" % (broker.host, broker.port), file=sys.stderr)
    try:
        url = parse_url(url_text)
        shard, k, n = shard_part(args.shard)
        where = Path(args.data) if args.data else remote_dir() / "referee" / shard
        accounts = None
        if args.passwords:
            from zuniboard.remote.broker_accounts import BrokerAccounts

            pid = Path(args.mosquitto_pid) if args.mosquitto_pid else None
            accounts = BrokerAccounts(Path(args.passwords), pid)
        service = RefereeService(url, where, shard=shard, accounts=accounts, part=(k, n))
    except (BrokerUrlError, ProtocolError) as exc:
        raise UsageError(str(exc))

    def stop(signum: int, frame: FrameType | None) -> None:
        service.stop()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print("zuni referee: %s, games kept in %s" % (url, where), file=sys.stderr, flush=True)
    try:
        service.run()
    finally:
        if broker is not None:
            broker.stop()
    return 0
