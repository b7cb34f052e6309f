"""A fault-injecting TCP relay (CPython), the network's counterpart of tools/linkrig.py's
serial relay: clients connect to ``TcpRelay.port`` and each connection is joined to a new
connection to the target (the broker). Faults, set while it runs:

- ``delay_s`` (and ``jitter_s``): every chunk waits this long (plus a random share of the
  jitter) before it is passed on, in order: a chunk never overtakes another;
- ``cut()``: every connection through the relay is closed at once (a cable pulled, a
  NAT that forgot the connection); clients reconnect;
- ``hold(seconds)``: nothing passes and new connections wait for that long (a network
  that swallows everything: keepalives time out), then it flows again;
- ``refuse``: new connections are closed at once (the network is down).

Used by tests/test_remote_faults.py; ``python tools/tcprelay.py LISTEN_PORT HOST:PORT``
runs one by hand (delays from ``--delay``)."""

from __future__ import annotations

import argparse
import contextlib
import random
import select
import socket
import threading
import time

CHUNK = 65536


class _Pipe:
    """One client connection and its connection to the target."""

    def __init__(self, relay: TcpRelay, client: socket.socket, target: socket.socket) -> None:
        self.relay = relay
        self.ends = (client, target)
        self.closed = threading.Event()
        for src, dst in ((client, target), (target, client)):
            threading.Thread(target=self._copy, args=(src, dst), daemon=True).start()

    def _copy(self, src: socket.socket, dst: socket.socket) -> None:
        due = 0.0  # when the previous chunk of this direction went: order is kept
        try:
            while not self.closed.is_set():
                ready, _, _ = select.select([src], [], [], 0.1)
                if not ready:
                    continue
                data = src.recv(CHUNK)
                if not data:
                    break
                relay = self.relay
                wait = relay.delay_s + random.random() * relay.jitter_s
                due = max(due, time.monotonic() + wait)
                while not self.closed.is_set() and (time.monotonic() < due or relay.held()):
                    time.sleep(0.01)
                if self.closed.is_set():
                    break
                dst.sendall(data)
                relay.bytes += len(data)
        except OSError:
            pass
        self.close()

    def close(self) -> None:
        if self.closed.is_set():
            return
        self.closed.set()
        for end in self.ends:
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                end.close()


class TcpRelay:
    def __init__(self, target_host: str, target_port: int, port: int = 0) -> None:
        self.target = (target_host, target_port)
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", port))
        self.server.listen(64)
        self.port = int(self.server.getsockname()[1])
        self.delay_s = 0.0
        self.jitter_s = 0.0
        self.refuse = False
        self.hold_until = 0.0
        self.bytes = 0
        self.cuts = 0
        self.pipes: list[_Pipe] = []
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def held(self) -> bool:
        return time.monotonic() < self.hold_until

    def hold(self, seconds: float) -> None:
        self.hold_until = time.monotonic() + seconds

    def cut(self) -> None:
        with self.lock:
            pipes, self.pipes = self.pipes, []
        for pipe in pipes:
            pipe.close()
        self.cuts += 1

    def _accept(self) -> None:
        while not self.stopped.is_set():
            ready, _, _ = select.select([self.server], [], [], 0.1)
            if not ready:
                continue
            try:
                client, _ = self.server.accept()
            except OSError:
                continue
            while self.held() and not self.stopped.is_set():
                time.sleep(0.01)
            if self.refuse:
                client.close()
                continue
            try:
                target = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()  # the target is down (a broker restarting): the client retries
                continue
            with self.lock:
                self.pipes = [p for p in self.pipes if not p.closed.is_set()]
                self.pipes.append(_Pipe(self, client, target))

    def close(self) -> None:
        self.stopped.set()
        self.cut()
        self.thread.join(5)
        self.server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("port", type=int)
    parser.add_argument("target", help="HOST:PORT")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds every chunk waits")
    args = parser.parse_args()
    host, _, port = args.target.rpartition(":")
    relay = TcpRelay(host, int(port), args.port)
    relay.delay_s = args.delay
    print("relaying 127.0.0.1:%d -> %s" % (relay.port, args.target), flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        relay.stopped.wait()


if __name__ == "__main__":
    main()
