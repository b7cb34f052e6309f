"""Fuzzing the link's decoder and the board session's input path.

Hypothesis drives the codec and BoardSession on CPython; then a corpus of random,
mutated and valid lines generated here is fed to the same codec under the MicroPython
unix port, which must never crash, never accept a damaged frame, and judge every line
exactly as CPython does."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zuniboard.virtual.mpy import MicroPythonMissing, micropython_command, micropython_env

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "firmware" / "lib"))
sys.path.insert(0, str(REPO / "tests" / "shared"))

from test_link_codec import FakeApp, FakePort  # noqa: E402

from zuni_link import codec  # noqa: E402
from zuni_link.codec import FrameError, LineAssembler, decode, encode  # noqa: E402
from zuni_link.session import QUEUE_BYTES, BoardSession  # noqa: E402

VERBS = ["hello", "state", "moves", "ping", "ack", "new", "takeback", "hostmove", "hint", "raw", "button", "x"]
printable = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=60)
frames = st.builds(
    lambda seq, verb, body: encode(seq, verb, body.strip()),
    st.integers(0, codec.MAX_SEQ),
    st.sampled_from(VERBS),
    printable,
)


def _judge(line: bytes) -> str:
    """What decode makes of a line: "ok seq verb body checked" or "err code"."""
    try:
        seq, verb, body, checked = decode(line)
    except FrameError as e:
        return "err " + e.code
    return "ok %d %s %s %d" % (seq, verb, body, checked)


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=600))
def test_decode_never_fails_otherwise_on_random_bytes(data: bytes) -> None:
    try:
        seq, verb, body, checked = decode(data)
    except FrameError as e:
        assert e.code in ("garbage", "toolong", "crc", "syntax"), e
        return
    if checked:  # accepted with a checksum: it must be exactly the frame encode makes
        assert encode(seq, verb, body)[:-1].upper() == data.upper()


@settings(max_examples=500, deadline=None)
@given(frames, st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=4))
def test_a_damaged_frame_is_never_accepted(frame: bytes, changes: list[tuple[int, int]]) -> None:
    line = bytearray(frame[:-1])
    for pos, value in changes:
        line[pos % len(line)] = value
    if bytes(line).upper() == frame[:-1].upper():
        return
    try:
        got = decode(line)
    except FrameError:
        return
    # Only the placeholder form may pass, and then it is marked unchecked.
    assert got[3] is False, (frame, bytes(line), got)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=800), st.lists(st.integers(1, 64), min_size=1, max_size=20))
def test_assembler_cuts_any_stream_like_split_does(data: bytes, chunks: list[int]) -> None:
    asm = LineAssembler(64)
    got: list[tuple[str, bytes]] = []
    pos = 0
    i = 0
    while pos < len(data):
        end = min(len(data), pos + chunks[i % len(chunks)])
        i += 1
        p = pos
        while p < end:
            p = asm.push(data, p, end)
            if asm.ready == codec.LINE:
                got.append(("line", bytes(asm.line())))
            elif asm.ready == codec.TOOLONG:
                got.append(("toolong", b""))
            elif asm.ready == codec.BADBYTES:
                got.append(("bad", b""))
        pos = end
    expected: list[tuple[str, bytes]] = []
    for line in data.replace(b"\r", b"\n").split(b"\n")[:-1]:
        if not line:
            continue
        if len(line) > 64:
            expected.append(("toolong", b""))
        elif any(b < 0x20 or b > 0x7E for b in line):
            expected.append(("bad", b""))
        else:
            expected.append(("line", line))
    assert got == expected
    assert len(asm.buf) == 64


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.binary(max_size=200), frames), max_size=30), st.integers(0, 2**29))
def test_session_input_path_never_crashes_and_only_valid_frames_act(chunks: list[bytes], t0: int) -> None:
    port = FakePort()
    app = FakeApp(["s3xm4-m5"])
    session = BoardSession(port, app, boot_id="fuzz00")
    session.poll(t0)
    expected_commands = 0
    hello_ok = False
    seen_seqs: list[int] = []
    for chunk in chunks:
        port.inbox += chunk
        # What a whole, well-formed frame may do (random binary practically never is one).
        if chunk.endswith(b"\n"):
            try:
                seq, verb, body, checked = decode(chunk[:-1])
            except FrameError:
                pass
            else:
                if verb == "hello" and checked:
                    hello_ok = hello_ok or "proto=3" in body
                if verb in ("new", "takeback", "hostmove", "hint", "button") and checked and hello_ok:
                    expected_commands += 1
                    seen_seqs.append(seq)
                elif verb in ("raw", "ledtest"):  # diagnostics: no hello, no checksum needed
                    expected_commands += 1
    for t in range(40):
        session.poll(t0 + t)
        assert session.queued_bytes() <= QUEUE_BYTES
    port.frames()  # everything written is a valid frame
    assert len(app.commands) <= expected_commands


def _corpus(n: int, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    out: list[bytes] = []
    for i in range(n):
        kind = i % 5
        body = "".join(chr(rng.randrange(0x20, 0x7F)) for _ in range(rng.randrange(30))).strip()
        frame = encode(rng.randrange(65536), rng.choice(VERBS), body)[:-1]
        if kind == 0:
            out.append(bytes(rng.randrange(256) for _ in range(rng.randrange(80))))
        elif kind == 1:
            b = bytearray(frame)
            for _ in range(rng.randrange(1, 4)):
                j = rng.randrange(len(b))
                b[j] = rng.choice([c for c in range(0x20, 0x7F) if c != b[j]])
            out.append(bytes(b))
        elif kind == 2:
            out.append(frame[: rng.randrange(len(frame))])
        elif kind == 3:
            out.append(frame)
        else:
            out.append(bytes(rng.randrange(0x20, 0x7F) for _ in range(rng.randrange(600))))
    return out


MP_SCRIPT = """
import sys
import binascii
from zuni_link.codec import FrameError, decode
from zuni_link.session import BoardSession
class P:
    def __init__(self): self.data = b""
    def read_into(self, buf):
        n = min(len(buf), len(self.data)); buf[:n] = self.data[:n]; self.data = self.data[n:]; return n
    def write(self, d): return len(d)
class A:
    def hello_info(self): return {"fw": "x"}
    def state_info(self): return {"game": "g", "moves": 0}
    def moves_from(self, i): return []
    def command(self, name, arg): raise ValueError("no")
port = P()
session = BoardSession(port, A(), "mp0001")
with open(sys.argv[1]) as f:
    for row in f:
        line = binascii.unhexlify(row.strip())
        try:
            seq, verb, body, checked = decode(line)
            print("ok %d %s %s %d" % (seq, verb, body, checked))
        except FrameError as e:
            print("err " + e.code)
        port.data += line + b"\\n"
        t = 0
        while port.data:
            session.poll(t)
            t += 1
print("done", session.rx_frames, session.rx_errors)
"""


def test_micropython_judges_a_fuzz_corpus_like_cpython(tmp_path: Path) -> None:
    try:
        command = micropython_command(tmp_path / "fuzz.py", str(tmp_path / "corpus.txt"), heap="1M")
    except MicroPythonMissing as exc:  # pragma: no cover
        pytest.skip(str(exc))
    corpus = _corpus(3000, seed=11)
    (tmp_path / "corpus.txt").write_text("".join(line.hex() + "\n" for line in corpus))
    (tmp_path / "fuzz.py").write_text(MP_SCRIPT)
    result = subprocess.run(command, env=micropython_env(), capture_output=True, text=True, timeout=120)
    lines = result.stdout.splitlines()
    assert result.returncode == 0 and lines and lines[-1].startswith("done"), result.stdout[-2000:]
    expected = [_judge(line) for line in corpus]
    got = lines[:-1]
    assert len(got) == len(expected)
    mismatches = [(corpus[i], expected[i], got[i]) for i in range(len(corpus)) if got[i] != expected[i]]
    assert not mismatches, json.dumps([(c.hex(), e, g) for c, e, g in mismatches[:5]])
    accepted = [e for e in expected if e.startswith("ok") and e.endswith(" 1")]
    assert len(accepted) >= 500  # the valid frames (and only those) got through
    for line in corpus:  # every frame accepted with a checksum is exactly one encode() makes
        judged = _judge(line)
        if judged.startswith("ok") and judged.endswith(" 1"):
            seq, verb, body, _ = decode(line)
            assert encode(seq, verb, body)[:-1].upper() == line.upper(), line
