"""Run shared test modules under the MicroPython unix port.

Usage (pytest calls it through tests/checks/test_micropython.py):

    micropython tools/mptest.py tests/shared/test_rules_line.py [...]

Each module's ``test_*`` functions run in file order; a failure prints its traceback
and the run exits with status 1. The closing line is ``N passed, N failed``.
Runs under MicroPython only: it uses the subset both interpreters share.
"""

import sys


def _module_name(path):
    name = path.rsplit("/", 1)[-1]
    if name.endswith(".py"):
        name = name[:-3]
    return name


def _run_module(path, only):
    folder = path.rsplit("/", 1)[0] if "/" in path else "."
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = _module_name(path)
    module = __import__(name)
    passed = 0
    failed = 0
    names = [n for n in dir(module) if n.startswith("test_")]
    # dir() order is not file order under MicroPython; sort for a stable report.
    names.sort()
    for test_name in names:
        if only and test_name not in only:
            continue
        fn = getattr(module, test_name)
        if not callable(fn):
            continue
        try:
            fn()
        except Exception as exc:  # report every failure, then go on
            failed += 1
            print("FAIL %s::%s" % (name, test_name))
            sys.print_exception(exc)
        else:
            passed += 1
            print("PASS %s::%s" % (name, test_name))
    return passed, failed


def main(argv):
    only = []
    paths = []
    for arg in argv:
        if arg.startswith("-k="):
            only.append(arg[3:])
        else:
            paths.append(arg)
    if not paths:
        print("usage: micropython tools/mptest.py TEST_FILE.py [...] [-k=test_name ...]")
        sys.exit(2)
    passed = 0
    failed = 0
    for path in paths:
        try:
            p, f = _run_module(path, only)
        except Exception as exc:  # an import error fails the whole module
            print("ERROR importing %s" % path)
            sys.print_exception(exc)
            p, f = 0, 1
        passed += p
        failed += f
    if passed + failed == 0:
        print("no tests ran")
        sys.exit(1)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


main(sys.argv[1:])
