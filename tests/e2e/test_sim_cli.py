"""`zuni sim` as a process: stopping it stops the firmware it started, and so does killing it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from play_helpers import sigint_default
from waiting import wait_until

BIN = Path(sys.executable).parent


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command name may hold spaces: the parent pid is the second field after ')'.
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path("/proc/%d/stat" % pid).read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find the firmware process")
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_stopping_zuni_sim_stops_the_firmware(tmp_path: Path, how: signal.Signals) -> None:
    proc = subprocess.Popen(
        [str(BIN / "zuni"), "sim", "--no-http", "--flash", str(tmp_path / "flash.img")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=dict(os.environ, PYTHONFAULTHANDLER="1"),  # a stuck exit's stacks on SIGABRT
        preexec_fn=sigint_default,  # Ctrl-C as from a terminal, whatever the test worker ignores
    )
    try:
        assert proc.stdout is not None
        seen = []
        for line in proc.stdout:
            seen.append(line)
            if "Ctrl-C to stop" in line:
                break
        assert any("serial port" in line for line in seen), "".join(seen)
        firmware = [pid for pid in _children(proc.pid) if "main.py" in Path("/proc/%d/cmdline" % pid).read_text()]
        assert len(firmware) == 1, "expected one firmware process, found %r" % firmware
        os.kill(proc.pid, how)
        # SIGKILL: no clean-up at all in the host; the firmware sees its lifeline hang up.
        # Generous: the firmware's clean stop at a load of 8 on two cores took over 20 s.
        try:
            code = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)  # faulthandler prints every thread's stack
            out = proc.communicate(timeout=10)[0]
            raise AssertionError("zuni sim did not stop within 60 s; its stacks:\n%s" % out[-6000:]) from None
        assert code == (-signal.SIGKILL if how == signal.SIGKILL else 0)
        wait_until(lambda: not _alive(firmware[0]), "the firmware process to end with `zuni sim`", 20, step=0.05)
    finally:
        if proc.poll() is None:
            proc.terminate()  # clean first: SIGKILL would leave nothing to stop the firmware but its lifeline
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
