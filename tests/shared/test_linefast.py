"""The line games' fast move generator (zuni.linefast) gives LineGame.legal_moves() and
legal_captures(), move for move and in the same order, on every ruleset option, and its
make/unmake and evaluation are LineGame's push/pop and zuni.evaluate's. Runs under
CPython (plain Python) and MicroPython (the viper code the board runs)."""

import zuni
import zuni.linefast as F
from check import eq, raises
from zuni.evaluate import line_team0
from zuni.line import LineGame

# Every option of the line games' rulesets, some in combination.
RULESETS = (
    "mosona",
    "mosona board=open",
    "mosona jumps=straight",
    "mosona jumps=pattern chain=optional capture=free",
    "mosona chain=none first=north",
    "kolowis",
    "kolowis size=short chain=forced",
    "kolowis chain=none jumps=beyond",
    "kolowis jumps=pattern capture=free",
)
# Room for every chain of the widest options (pattern jumps, optional chains: hundreds).
BIG = 32768


class Lcg:
    def __init__(self, seed):
        self.x = (seed * 2654435761 + 1) & 0x3FFFFFFF

    def below(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x3FFFFFFF
        return (self.x >> 7) % n


def _games(ruleset, games=2, plies=120):
    """Positions of seeded random games of ``ruleset`` (every ply's)."""
    for g in range(games):
        rng = Lcg(g + 11)
        game = zuni.new_game(ruleset)
        for _ in range(plies):
            if game.is_game_over():
                break
            yield game
            moves = game.legal_moves()
            game.push(moves[rng.below(len(moves))])


def _records(mem, start, end):
    out = []
    names = None
    pos = start
    while pos < end:
        out.append(F.to_move(mem, pos, names).path)
        pos += mem[pos] + 1
    return out


def test_the_moves_are_the_engines_in_its_order():
    positions = 0
    for ruleset in RULESETS:
        for game in _games(ruleset):
            want = [(m.kind, m.path, m.captures) for m in game.legal_moves()]
            got = [(m.kind, m.path, m.captures) for m in F.moves(game, BIG)]
            eq(got, want, "%s: %s" % (ruleset, game.position_text()))
            positions += 1
    assert positions > 500, positions


def test_captures_only_and_the_step_flag():
    for ruleset in RULESETS:
        for game in _games(ruleset, 1, 80):
            mem = F.arena(game, BIG)
            end = F.gen(mem, F.MOVES, 1)
            eq(_records(mem, F.MOVES, end), [m.path for m in game.legal_captures()], ruleset)
            steps = game.count_moves() > len(game.legal_captures()) or (
                not game.legal_captures() and game.count_moves() > 0
            )
            if game.ruleset["capture"] != "forced":
                eq(bool(mem[F.H_STEPS]), steps, "steps flag in " + ruleset)


def test_make_and_unmake_are_push_and_pop():
    for ruleset in ("mosona", "kolowis", "kolowis jumps=pattern capture=free", "mosona chain=optional"):
        for game in _games(ruleset, 1, 80):
            mem = F.arena(game, BIG)
            before = bytes(mem[F.BOARD : F.BOARD + len(game.board)])
            end = F.gen(mem, F.MOVES, 0)
            pos = F.MOVES
            for move in game.legal_moves():
                taken = F.make(mem, pos)
                eq(taken, len(move.captures), "captures of " + move.text())
                game.push(move)
                eq(bytes(mem[F.BOARD : F.BOARD + len(game.board)]), bytes(game.board), "after " + move.text())
                eq(F.team0(mem), line_team0(game), "evaluation after " + move.text())
                # The other side to move now: its moves are the engine's too.
                end2 = F.gen(mem, end, 0)
                eq(_records(mem, end, end2), [m.path for m in game.legal_moves()], "replies to " + move.text())
                # Mode 2: the captures and the evaluation in one pass.
                end2 = F.gen(mem, end, 2)
                eq(_records(mem, end, end2), [m.path for m in game.legal_captures()], "captures after " + move.text())
                eq(F.evaluation(mem), line_team0(game), "mode 2's evaluation after " + move.text())
                game.pop()
                F.unmake(mem, pos)
                eq(bytes(mem[F.BOARD : F.BOARD + len(game.board)]), before, "back from " + move.text())
                pos += mem[pos] + 1
            eq(pos, end, "records end")


def test_a_full_arena_says_so_and_the_board_is_unchanged():
    # Pattern jumps with optional chains: hundreds of chains, far more than 1600 bytes hold.
    game = LineGame.from_position(
        "mosona jumps=pattern chain=optional capture=free",
        "south m9 s1 s2 s3 north n1 n2 n3 n5 n6 n8 m1 m2 m3 m4 m7 m8",
        "south",
    )
    mem = F.arena(game, 1600)
    before = bytes(mem[: F.PATH])
    eq(F.gen(mem, F.MOVES, 0), -1, "gen on a full arena")
    eq(bytes(mem[F.BOARD : F.PATH]), before[F.BOARD :], "the board and tables after a full arena")
    with raises(MemoryError, "1600 bytes"):
        F.moves(game, 1600)
    assert len(F.moves(game, BIG)) > 300


def test_the_helpers_on_records():
    game = LineGame.from_position("mosona", "south s3 north m4", "south")
    mem = F.arena(game, 4096)
    end = F.gen(mem, F.MOVES, 0)
    eq([m.text() for m in F.moves(game)], [m.text() for m in game.legal_moves()])
    eq(F.longest(mem, F.MOVES, end), 3)
    game = zuni.new_game("kolowis size=short")
    mem = F.arena(game, 4096)
    end = F.gen(mem, F.MOVES, 0)
    texts = [m.text() for m in F.moves(game)]
    last = texts[-1]
    origin, landing = game.geometry.point(last.split("-")[0]), game.geometry.point(last.split("-")[1])
    F.promote(mem, F.MOVES, end, origin * 256 + landing)
    names = game.geometry.names
    got = [F.to_move(mem, p, names).text() for p in _starts(mem, F.MOVES, end)]
    eq(got[0], last, "the promoted step first")
    eq(sorted(got), sorted(texts), "the same moves")
    eq(F.longest(mem, F.MOVES, end), 2)


def _starts(mem, start, end):
    out = []
    while start < end:
        out.append(start)
        start += mem[start] + 1
    return out
