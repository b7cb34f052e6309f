"""Put this folder on PYTHONPATH to run a process as if on Windows, for what matters to
the virtual board: no ``termios``, ``tty``, ``pty`` or ``fcntl`` (an import of them
raises ModuleNotFoundError), no ``select.poll``/``epoll`` and no ``os.openpty``.

Only the code of this project is refused them: the standard library and the libraries
that have a Windows backend of their own (pyserial's serialwin32, prompt_toolkit's win32
input) still get them, since on Windows they would take that other branch, not fail.
Every refusal is appended to ``$ZUNI_BLOCKED_LOG`` when it is set.
"""

import builtins
import os
import select
import sys
import sysconfig

BLOCKED = frozenset(("termios", "tty", "pty", "fcntl"))
WINDOWS_BACKENDS = ("serial", "prompt_toolkit")
_STDLIB = os.path.normcase(sysconfig.get_paths()["stdlib"])
_real_import = builtins.__import__


def _exempt(importer_globals):
    name = str((importer_globals or {}).get("__name__") or "")
    if name.split(".")[0] in WINDOWS_BACKENDS:
        return True
    path = os.path.normcase(str((importer_globals or {}).get("__file__") or ""))
    return bool(path) and path.startswith(_STDLIB) and "site-packages" not in path


def _refuse(name, importer):
    log = os.environ.get("ZUNI_BLOCKED_LOG")
    if log:
        with open(log, "a") as f:
            f.write("%s imported by %s\n" % (name, importer))
    raise ModuleNotFoundError("No module named %r (as on Windows: tests/windows_like)" % name, name=name)


def _import(name, globals=None, locals=None, fromlist=(), level=0):
    # Through __import__, not a finder: a module pyserial already imported is in
    # sys.modules, and an import of it would never reach a finder.
    if level == 0 and name.split(".")[0] in BLOCKED and not _exempt(globals):
        _refuse(name, (globals or {}).get("__name__"))
    return _real_import(name, globals, locals, fromlist, level)


class _Finder:
    """importlib.import_module bypasses __import__: refuse the first import there too."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            frame = sys._getframe(1)
            while frame is not None and (
                "importlib" in frame.f_code.co_filename or frame.f_code.co_filename == __file__
            ):
                frame = frame.f_back
            if frame is not None and not _exempt(frame.f_globals):
                _refuse(name, frame.f_globals.get("__name__"))
        return None


builtins.__import__ = _import
sys.meta_path.insert(0, _Finder())
for _name in ("poll", "epoll", "devpoll", "kqueue"):
    if hasattr(select, _name):
        delattr(select, _name)
if hasattr(os, "openpty"):
    del os.openpty
