"""Per-game broker accounts for Mosquitto (docs/remote.md, "Mosquitto for the
internet"): the referee adds a user named after each game it creates to Mosquitto's
password file, the game's key its password, and has Mosquitto read the file again
(SIGHUP). With the recipe's ACL (``pattern ... g/%u/...``) a game's players can publish
and read only in their own game's topics.

>>> line = password_line("4bb2281cd1c1", "key", salt=bytes(12))
>>> line.startswith("4bb2281cd1c1:$7$101$AAAAAAAAAAAAAAAA$")
True
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import signal
from pathlib import Path

from zuniboard.oslock import ProcessLock

ITERATIONS = 101  # mosquitto_passwd's (its $7$ format: PBKDF2-SHA512, a 12-byte salt)


def password_line(user: str, password: str, salt: bytes | None = None) -> str:
    salt = os.urandom(12) if salt is None else salt
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, ITERATIONS, 64)
    return "%s:$7$%d$%s$%s" % (user, ITERATIONS, base64.b64encode(salt).decode(), base64.b64encode(digest).decode())


class BrokerAccounts:
    """Mosquitto's password file ``path`` (the operator's own users in it are kept) and
    the file with Mosquitto's process id (``pid_file``, its own `pid_file` option)."""

    def __init__(self, path: Path, pid_file: Path | None) -> None:
        self.path = path
        self.pid_file = pid_file

    def add(self, user: str, password: str) -> None:
        # Several referees (--shard K/N) share one Mosquitto and its one password file:
        # each reads, changes and replaces it under a lock, so none loses another's user.
        line = password_line(user, password)
        with ProcessLock(self.path.with_name(self.path.name + ".lock"), "the password file %s" % self.path, wait=True):
            lines = self.path.read_text().splitlines() if self.path.exists() else []
            lines = [kept for kept in lines if not kept.startswith(user + ":")]
            lines.append(line)
            temp = self.path.with_name("%s.%d.tmp" % (self.path.name, os.getpid()))
            temp.write_text("\n".join(lines) + "\n")
            os.chmod(temp, self.path.stat().st_mode & 0o777 if self.path.exists() else 0o600)
            os.replace(temp, self.path)
        self.reload()

    def reload(self) -> None:
        if self.pid_file is None:
            return
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(self.pid_file.read_text().split()[0]), signal.SIGHUP)
