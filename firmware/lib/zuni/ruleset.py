"""Ruleset strings (docs/rules.md, "Ruleset strings"): a game id followed by options.

Options are data: ``GAME_OPTIONS[game_id]`` (or ``options_of(game_id)``) is a tuple of
``(name, allowed, default)`` where ``allowed`` is a tuple of strings, or ``None`` for a
positive integer.

>>> str(parse_ruleset("kolowis  chain=forced size=short"))
'kolowis size=short chain=forced'
"""

from zuni.errors import RulesetError

GAME_TITLES = {
    "mosona": "Awithlaknannai Mosona",
    "kolowis": "Kolowis Awithlaknannai",
    "awithlaknakwe": "Awithlaknakwe",
}

# The options of each game, one text per game: ``name=default:allowed,...``, or
# ``name=default`` for a positive integer (and for Awithlaknakwe's ``order``).
# Tuples of strings would be made at import and kept (6.8 KB of a 64-bit MicroPython
# heap, the strings of a constant tuple are heap objects); a text is one object, and
# ``options_of()`` makes the tuples only while a ruleset is parsed or printed.
_SPECS = {
    "mosona": "board=lined:lined,open jumps=beyond:beyond,straight,pattern chain=forced:forced,optional,none"
    " capture=forced:forced,free first=south:south,north quiet=40 stall=more:more,draw",
    "kolowis": "size=long:long,short jumps=straight:beyond,straight,pattern chain=optional:forced,optional,none"
    " capture=forced:forced,free first=south:south,north quiet=40 stall=more:more,draw",
    "awithlaknakwe": "players=2:2,4 first=south:south,north order=swne teams=separate:separate,combined"
    " priests=team:team,each custody=diagonal:diagonal,all quiet=40"
    " scoring=captures+arrivals:captures+arrivals,captures",
}


def options_of(game_id):
    """The options of a game as a tuple of ``(name, allowed, default)``: ``allowed`` is a
    tuple of strings, or None for a positive integer (see ``GAME_OPTIONS``).

    >>> options_of("mosona")[0]
    ('board', ('lined', 'open'), 'lined')
    """
    out = []  # type: list
    for item in _SPECS[game_id].split():
        name, value = item.split("=")
        if ":" in value:
            default, allowed = value.split(":")
            out.append((name, tuple(allowed.split(",")), default))
        else:
            out.append((name, None, value))
    return tuple(out)


def __getattr__(name):
    # ``GAME_OPTIONS`` (game id -> options_of(game id)) is made when asked for, not at
    # import (MicroPython has module __getattr__ too).
    if name == "GAME_OPTIONS":
        return {game_id: options_of(game_id) for game_id in _SPECS}
    raise AttributeError(name)


class Ruleset:
    """A game id and a complete option dict (defaults filled in).

    ``str()`` gives the canonical text: the id, then the options that differ from
    the defaults, in the order of ``GAME_OPTIONS``. Two rulesets are equal when
    they play the same game by the same rules."""

    def __init__(self, game_id, options):
        self.game_id = game_id
        self.options = options

    def __getitem__(self, name):
        return self.options[name]

    def get_int(self, name):
        return int(self.options[name])

    def __str__(self):
        parts = [self.game_id]
        for name, _allowed, default in options_of(self.game_id):
            value = self.options[name]
            if value != default:
                parts.append(name + "=" + value)
        return " ".join(parts)

    def __repr__(self):
        return "Ruleset(%r)" % (str(self),)

    def __eq__(self, other):
        return isinstance(other, Ruleset) and str(self) == str(other)

    def __hash__(self):
        return hash(str(self))

    @property
    def title(self):
        return GAME_TITLES[self.game_id]


def _check_order(value):
    letters = sorted(value)
    if len(value) != 4 or letters != ["e", "n", "s", "w"]:
        raise RulesetError(
            "bad value %r for option 'order' (allowed: the four letters s, w, n, e in any order, e.g. swne)" % (value,)
        )


def parse_ruleset(text):
    """Parse ``"game opt=value ..."``; RulesetError names the bad part and what is allowed."""
    if not isinstance(text, str):
        raise RulesetError("a ruleset is text, not %r" % (text,))
    words = text.split()
    if not words:
        raise RulesetError("empty ruleset (allowed games: %s)" % ", ".join(sorted(_SPECS)))
    game_id = words[0]
    if game_id not in _SPECS:
        raise RulesetError("unknown game %r (allowed: %s)" % (game_id, ", ".join(sorted(_SPECS))))
    spec = options_of(game_id)
    options = {}
    given = {}
    for name, _allowed, default in spec:
        options[name] = default
    for word in words[1:]:
        if "=" not in word:
            raise RulesetError("option %r in ruleset %r has no value (write name=value)" % (word, text))
        name, value = word.split("=", 1)
        entry = None
        for item in spec:
            if item[0] == name:
                entry = item
        if entry is None:
            raise RulesetError(
                "unknown option %r for %s (allowed: %s)" % (name, game_id, ", ".join(item[0] for item in spec))
            )
        if name in given:
            raise RulesetError("option %r given twice in ruleset %r" % (name, text))
        allowed = entry[1]
        if name == "order":
            _check_order(value)
        elif allowed is None:
            if not value.isdigit() or int(value) < 1 or value[0] == "0":
                raise RulesetError("bad value %r for option %r (allowed: a positive integer)" % (value, name))
        elif value not in allowed:
            raise RulesetError("bad value %r for option %r (allowed: %s)" % (value, name, ", ".join(allowed)))
        options[name] = value
        given[name] = True
    if game_id == "awithlaknakwe":
        _check_awithlaknakwe(options, given)
    return Ruleset(game_id, options)


def _check_awithlaknakwe(options, given):
    four = options["players"] == "4"
    separate = options["teams"] == "separate"
    if not four:
        for name in ("order", "teams", "priests"):
            if name in given:
                raise RulesetError("option %r applies only with players=4" % (name,))
        return
    if separate and "first" in given:
        raise RulesetError(
            "option 'first' does not apply with players=4 teams=separate: use order=... (e.g. order=swne)"
        )
    if not separate:
        if "order" in given:
            raise RulesetError("option 'order' applies only with teams=separate (use first=south|north)")
        if options["priests"] == "each":
            raise RulesetError("priests=each cannot be combined with teams=combined (the team has one bow priest)")
