"""The link's serial port: non-blocking reads, a bounded output queue, never a blocking write.

``StreamPort(stream_in, stream_out, select_module)`` is what ``zuni_link.session.
BoardSession`` expects: ``read_into(buf) -> n`` (0 when nothing is there) and
``write(data) -> n`` (what the queue took: partial or 0 when it is full; never blocks).

Two kinds of stream:

- a **blocking** stream (the Pico's USB serial ``sys.stdin.buffer`` /
  ``sys.stdout.buffer``, a pty opened by path): ``read(n)`` there waits for all n bytes
  even after ``poll`` said readable, and a write of n bytes waits until all fit (on the
  Pico up to 500 ms per write while the PC holds the port open without reading). So
  reads move ONE byte per call, each only after ``poll(0)`` says the stream is readable.
  Writes go out as whole frames, ONE call for all the queued bytes up to
  ``write_budget`` (on the RP2040 a call costs about 150 us whatever its length: a byte
  per call made a 60-byte frame cost 9 ms of the scan), but only while ``host_reads``
  is True: the link session sets it while a host has spoken lately, so the USB FIFO
  drains as fast as it fills. Otherwise, and after a write that came back short (the
  host stopped reading: that one call waited), it writes a byte per call, each only
  after ``poll(0)`` says one fits, which never blocks; whole frames again once
  ``recover_bytes`` (the FIFO's size) have gone out that way, i.e. the host read them.
- a **non-blocking** stream (a pty fd the parent opened with O_NONBLOCK): it moves
  whole chunks; a read returns None when empty, a write takes what fits.

Each ``pump`` writes at most ``write_budget`` bytes, so a long output queue costs the
scan loop a bounded time. ``calls`` counts the stream's write calls (tests, benchmarks).
"""

try:
    import select as _select
except ImportError:  # pragma: no cover
    _select = None  # type: ignore


class StreamPort:
    def __init__(
        self,
        stream_in,
        stream_out,
        select_module=None,
        nonblocking=False,
        queue_bytes=1024,
        write_budget=96,
        recover_bytes=256,
    ):
        sel = select_module if select_module is not None else _select
        self.fin = stream_in
        self.fout = stream_out
        self.nonblocking = nonblocking
        self._pin = sel.poll()
        self._pin.register(stream_in, sel.POLLIN)
        self._pout = sel.poll()
        self._pout.register(stream_out, sel.POLLOUT)
        self._q = bytearray(queue_bytes)
        self._head = 0  # index of the oldest queued byte
        self._count = 0
        self._one = bytearray(1)
        self.write_budget = write_budget
        # Whole-frame writes on a blocking stream (see the module's docstring).
        self.host_reads = False
        self.recover_bytes = recover_bytes
        self._careful = 0  # bytes still to go out one by one after a short write
        self.calls = 0  # write calls on the stream
        self.written = 0  # bytes that left the queue (counters for tests and diagnostics)
        self.refused = 0  # bytes write() could not take because the queue was full
        self.errors = 0  # OSErrors from the stream (host gone); they are not raised

    # -- readiness, without allocating on MicroPython (ipoll reuses its tuple) ------------
    @staticmethod
    def _ready(poller):
        ipoll = getattr(poller, "ipoll", None)
        if ipoll is None:
            return bool(poller.poll(0))
        for _ in ipoll(0):
            return True
        return False

    def readable(self):
        return self._ready(self._pin)

    def read_into(self, buf):
        """Bytes available now into ``buf`` (at most len(buf)); 0 when nothing is there."""
        self.pump()
        limit = len(buf)
        if self.nonblocking:
            try:
                n = self.fin.readinto(buf)
            except OSError:
                self.errors += 1
                return 0
            return n or 0
        n = 0
        one = self._one
        while n < limit and self._ready(self._pin):
            try:
                got = self.fin.readinto(one)
            except OSError:
                self.errors += 1
                break
            if not got:
                break  # end of file (the other side closed): nothing more now
            buf[n] = one[0]
            n += 1
        return n

    def write(self, data):
        """Queue what fits of ``data`` and write what the stream takes now; returns the bytes queued."""
        q = self._q
        size = len(q)
        take = len(data)
        room = size - self._count
        if take > room:
            self.refused += take - room
            take = room
        tail = self._head + self._count
        if tail >= size:
            tail -= size
        first = take if tail + take <= size else size - tail
        if first == len(data):
            q[tail : tail + first] = data
        else:
            q[tail : tail + first] = memoryview(data)[:first]
        if take > first:  # wraps around the ring
            q[0 : take - first] = memoryview(data)[first:take]
        self._count += take
        self.pump()
        return take

    def queued(self):
        return self._count

    def pump(self):
        """Write queued bytes while the stream takes them (at most ``write_budget``)."""
        if not self._count:
            return
        q = self._q
        size = len(q)
        budget = self.write_budget
        blocking = not self.nonblocking
        if blocking and (self._careful or not self.host_reads):
            self._pump_bytes(budget)
            return
        while self._count and budget > 0 and self._ready(self._pout):
            end = self._head + self._count
            if end > size:
                end = size
            if end - self._head > budget:
                end = self._head + budget
            want = end - self._head
            try:
                self.calls += 1
                n = self.fout.write(memoryview(q)[self._head : end])
            except OSError:
                self.errors += 1
                return
            if not n:
                n = 0
            if n:
                self._advance(n)
                budget -= n
            if n < want:
                if blocking:
                    # A blocking write came back short: it waited for a host that does
                    # not read. One byte at a time (never waiting) until it reads again.
                    self._careful = self.recover_bytes
                return

    def _pump_bytes(self, budget):
        q = self._q
        one = self._one
        while self._count and budget > 0 and self._ready(self._pout):
            one[0] = q[self._head]
            try:
                self.calls += 1
                n = self.fout.write(one)
            except OSError:
                self.errors += 1
                return
            if not n:
                return
            self._advance(1)
            budget -= 1
            if self._careful:
                self._careful -= 1

    def _advance(self, n):
        self._head += n
        if self._head >= len(self._q):
            self._head -= len(self._q)
        self._count -= n
        self.written += n
