"""Assertion helpers for tests that run under both CPython (pytest) and MicroPython.

``pytest.raises`` does not exist under MicroPython; ``raises`` does the same job:

    with raises(RulesetError, "chain"):
        parse_ruleset("kolowis chain=maybe")
"""


class raises:  # noqa: N801  (used like pytest.raises)
    def __init__(self, exc_type, contains=None):
        self.exc_type = exc_type
        self.contains = contains
        self.value = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            raise AssertionError("expected %s, nothing was raised" % self.exc_type.__name__)
        if not issubclass(exc_type, self.exc_type):
            return False
        self.value = exc
        if self.contains is not None and self.contains not in str(exc):
            raise AssertionError(
                "%s raised with %r, which does not mention %r" % (exc_type.__name__, str(exc), self.contains)
            )
        return True


def eq(actual, expected, what=""):
    """assert actual == expected, with both values in the message."""
    if actual != expected:
        raise AssertionError("%s: expected %r, got %r" % (what or "value", expected, actual))
