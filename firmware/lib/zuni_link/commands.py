"""The one table of host commands (docs/protocol.md, "Host -> board"), shared by the
board's link session (``zuni_link.session``) and the board app (its host commands: ``zuni_board.hostcmd``).

Each row: ``(verb, flags, argument kind, choices, handler)``. ``parse(verb, body)``
checks a command's arguments once, for both: it returns the argument in its canonical
form or raises ``FrameError(E_ARGS)`` naming the bad input. Both dispatch from the same
table: the session calls its own handler of a LINK verb (``v_hello``, ...) and the app's
handler (``cmd_new``, ...; ``method(verb)``) of every other, so a command's name,
arguments and handler are written down in one place.

>>> parse("agree", "draw")
'draw'
>>> parse("takeback", "4 12")
(4, 12)
>>> parse("ledtest", "walk 40")
40
"""

from micropython import const
from zuni_link.codec import E_ARGS, E_UNKNOWN, FrameError, parse_digest, parse_index, snippet, tokens, unesc

# Flags.
LINK = const(1)  # handled by the link session itself (not the app)
READONLY = const(2)  # changes nothing in the game: the '*' placeholder is enough, no hello needed
GAME = const(4)  # changes the game: needs a real checksum and a hello on this connection

# Argument kinds.
A_NONE = const(0)  # nothing
A_TEXT = const(1)  # the rest of the line, at least one word (tokens joined by one space)
A_WORD = const(2)  # exactly one word
A_OPT_WORD = const(3)  # one word or nothing ("")
A_CHOICE = const(4)  # one word of ``choices``
A_INDEX = const(5)  # one number
A_LEDTEST = const(6)  # nothing (0: the colours) or ``walk [MS]`` (the step in ms)
A_TAKEBACK = const(7)  # nothing (None: unconditional) or ``<hv> <moves>`` (a tuple)
A_ACK = const(8)  # ``<game> <moves> <digest>`` (a tuple)
A_KV = const(9)  # key=value tokens, checked by the session (hello)
A_POSITION = const(10)  # the rest of the line (a position text, docs/rules.md), as A_TEXT

SIDES = ("south", "west", "north", "east")
LEDWALK_STEP_MS = const(250)
LEDWALK_MIN_MS = const(20)
LEDWALK_MAX_MS = const(5000)

# verb, flags, argument, choices, handler (the session's for LINK, else the app's)
COMMANDS = (
    ("hello", LINK | READONLY, A_KV, None, "v_hello"),
    ("state", LINK | READONLY, A_NONE, None, "v_state"),
    ("moves", LINK | READONLY, A_INDEX, None, "v_moves"),
    ("ping", LINK | READONLY, A_NONE, None, "v_ping"),
    ("ack", LINK, A_ACK, None, "v_ack"),
    ("ledtest", READONLY, A_LEDTEST, None, "cmd_ledtest"),
    ("raw", READONLY, A_CHOICE, ("on", "off"), "cmd_raw"),
    ("new", GAME, A_TEXT, None, "cmd_new"),
    ("setup", GAME, A_POSITION, None, "cmd_setup"),
    ("takeback", GAME, A_TAKEBACK, None, "cmd_takeback"),
    ("hostmove", GAME, A_WORD, None, "cmd_hostmove"),
    ("hint", GAME, A_OPT_WORD, None, "cmd_hint"),
    ("grade", GAME, A_TEXT, None, "cmd_grade"),
    ("resign", GAME, A_CHOICE, SIDES, "cmd_resign"),
    ("agree", GAME, A_CHOICE, ("draw", "count"), "cmd_agree"),
    ("button", GAME, A_CHOICE, ("ok",), "cmd_button"),
)

VERBS = tuple([row[0] for row in COMMANDS])

# What each argument kind looks like, for error messages.
_USAGE = (
    "no arguments",
    "a ruleset, e.g. 'new mosona'",
    "one move",
    "one move or nothing",
    "",
    "one number",
    "nothing (colours) or walk [MS] (one LED at a time)",
    "nothing or <hv> <moves> (the history it takes the last move of)",
    "<game> <moves> <digest>",
    "key=value words",
    "a position, e.g. 'setup mosona | south to move | south s3 | north m4'",
)


def find(verb):  # type: (str) -> tuple
    """The table row of ``verb``; FrameError(unknown) for a verb not in it."""
    for row in COMMANDS:
        if row[0] == verb:
            return row
    raise FrameError(E_UNKNOWN, "unknown verb %s (known: %s)" % (snippet(verb), " ".join(VERBS)))


def method(verb):  # type: (str) -> str
    """The app's handler of ``verb`` (``cmd_...``); FrameError for a link-only verb."""
    row = find(verb)
    if row[1] & LINK:
        raise FrameError(E_UNKNOWN, "%s is not a board command" % verb)
    return row[4]


def _bad(verb, kind, choices, body):  # type: (str, int, tuple | None, str) -> FrameError
    what = "one of " + "|".join(choices) if choices is not None else _USAGE[kind]
    return FrameError(E_ARGS, "%s takes %s, got %s" % (verb, what, snippet(body)))


def parse(verb, body):  # type: (str, str) -> object
    """The checked argument of command ``verb`` with text ``body`` (see the kinds)."""
    row = find(verb)
    kind = row[2]
    choices = row[3]
    t = tokens(body)
    n = len(t)
    if kind == A_NONE:
        if n:
            raise _bad(verb, kind, None, body)
        return ""
    if kind == A_TEXT or kind == A_POSITION:
        if not n:
            raise _bad(verb, kind, None, body)
        return " ".join(t)
    if kind == A_WORD or kind == A_CHOICE:
        if n != 1 or (choices is not None and t[0] not in choices):
            raise _bad(verb, kind, choices, body)
        return t[0]
    if kind == A_OPT_WORD:
        if n > 1:
            raise _bad(verb, kind, None, body)
        return t[0] if n else ""
    if kind == A_INDEX:
        if n != 1:
            raise _bad(verb, kind, None, body)
        return parse_index(t[0], verb + " index")
    if kind == A_LEDTEST:
        if not n:
            return 0
        if t[0] != "walk" or n > 2:
            raise _bad(verb, kind, None, body)
        if n == 1:
            return LEDWALK_STEP_MS
        ms = parse_index(t[1], "ledtest walk step (ms)")
        if not LEDWALK_MIN_MS <= ms <= LEDWALK_MAX_MS:
            raise FrameError(
                E_ARGS, "ledtest walk: step %s is not %d..%d ms" % (snippet(t[1]), LEDWALK_MIN_MS, LEDWALK_MAX_MS)
            )
        return ms
    if kind == A_TAKEBACK:
        if not n:
            return None
        if n != 2:
            raise _bad(verb, kind, None, body)
        return (parse_index(t[0], "takeback history version"), parse_index(t[1], "takeback moves"))
    if kind == A_ACK:
        if n != 3:
            raise _bad(verb, kind, None, body)
        return (unesc(t[0]), parse_index(t[1], "ack moves"), parse_digest(t[2]))
    return body  # A_KV: the session decodes it
