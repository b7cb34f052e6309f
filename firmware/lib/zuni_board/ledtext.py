"""The LED picture as text, for tests, tools and logs (``Renderer.describe``): loaded
only when asked, so that the board's heap does not keep the names."""

PATTERN_NAMES = ("off", "steady", "slow", "fast", "double", "triple")
COLOUR_NAMES = (
    "black",
    "white",
    "dim-white",
    "red",
    "green",
    "dim-green",
    "blue",
    "orange",
    "magenta",
    "yellow",
    "cyan",
    "dim-yellow",
    "dim-cyan",
)


def describe(r, names=None):
    """Text of the lit points of renderer ``r``, e.g. ``"m5:green/steady s3:blue/steady"``."""
    parts = []
    for i in range(r.n):
        c = r.colour[i]
        if c:
            name = names[i] if names is not None else str(i)
            parts.append("%s:%s/%s" % (name, COLOUR_NAMES[c], PATTERN_NAMES[r.pattern[i]]))
    return " ".join(parts)
