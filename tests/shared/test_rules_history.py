"""The engine's memory-saving structures keep the public API: the packed history
(core.MoveStack), the line games' Move classes, lazy geometry, option tables as text.

Runs under CPython and MicroPython."""

import zuni
import zuni.line
import zuni.ruleset
from check import eq, raises
from zuni import JUMP, STEP, Move, new_game
from zuni.core import MoveStack
from zuni.ruleset import options_of


def _play(ruleset, plies, seed=12345):
    """A game after ``plies`` pseudo-random moves (fewer if it ends), and the moves."""
    game = new_game(ruleset)
    played = []
    for _ in range(plies):
        moves = game.legal_moves()
        if not moves:
            break
        seed = (seed * 1103515245 + 12345) & 0x3FFFFFFF
        move = moves[(seed >> 8) % len(moves)]
        game.push(move)
        played.append(move)
    return game, played


def test_history_reads_like_the_list_of_moves_played():
    game, played = _play("kolowis", 60)
    stack = game.move_stack
    eq(len(stack), len(played), "length")
    assert len(played) == 60
    eq(list(stack), played, "iteration")
    eq([m.text() for m in stack], [m.text() for m in played], "texts")
    for i in range(len(played)):
        eq(stack[i], played[i], "stack[%d]" % i)
        eq(stack[i].captures, played[i].captures, "captures of stack[%d]" % i)
        eq(stack[i].kind, played[i].kind, "kind of stack[%d]" % i)
        eq(stack[-1 - i], played[-1 - i], "stack[%d]" % (-1 - i))
    eq(stack[5:], played[5:], "slice")
    eq(stack[-3:], played[-3:], "negative slice")
    assert stack == played and not (stack != played)
    assert stack != played[:-1]
    assert stack != "not moves"
    eq(repr(stack), repr(played), "repr")
    # The history is bytes, not Move objects: a few bytes a move.
    packed = 0
    for chunk in stack._chunks:
        packed += len(chunk)
    assert packed <= 10 * len(played), packed


def test_history_index_errors_name_the_index():
    game, _ = _play("mosona board=open", 10)
    with raises(IndexError, "12"):
        game.move_stack[12]
    with raises(IndexError, "-11"):
        game.move_stack[-11]
    empty = new_game("mosona").move_stack
    assert not empty and len(empty) == 0
    eq(list(empty), [], "empty")
    with raises(IndexError):
        empty.pop()
    with raises(IndexError, "no move to take back"):
        new_game("mosona").pop()


def test_pop_gives_back_the_moves_in_reverse_and_the_start_position():
    game, played = _play("kolowis size=short", 80)
    start = new_game("kolowis size=short")
    assert len(played) > 30
    for i in range(len(played) - 1, -1, -1):
        move = game.pop()
        eq(move, played[i], "pop %d" % i)
        eq(move.captures, played[i].captures, "captures of pop %d" % i)
    eq(game.key(), start.key(), "start position")
    eq(game.quiet, 0, "quiet")


def test_recent_moves_are_the_objects_pushed():
    game, played = _play("mosona", 3)
    last = played[-1]
    assert game.move_stack[-1] is last
    assert game.pop() is last
    game.push(last)
    assert game.move_stack[-1] is last


def test_quiet_count_is_restored_across_packed_history():
    # 40 quiet moves in a row would end the game: quiet=200 lets a long game run.
    game, played = _play("kolowis quiet=200", 150, seed=7)
    quiets = []
    replay = new_game("kolowis quiet=200")
    for move in played:
        quiets.append(replay.quiet)
        replay.push(move)
    for i in range(len(played) - 1, -1, -1):
        game.pop()
        eq(game.quiet, quiets[i], "quiet after taking back to ply %d" % i)


def test_move_stack_chunks_hold_long_records():
    names = tuple("p%d" % i for i in range(200))
    stack = MoveStack(names, 600)
    moves = []
    for i in range(300):
        if i % 3:
            path = (i % 200, (i + 1) % 200)
            move = Move(STEP, path, (), names)
        else:
            path = tuple((i + j) % 200 for j in range(15))
            move = Move(JUMP, path, tuple(path[j] for j in range(1, 15, 2)), names)
        moves.append(move)
        stack.append(move)
    eq(len(stack), 300, "length")
    assert len(stack._chunks) > 2, "several chunks"
    eq(list(stack), moves, "iteration across chunks")
    eq([m.captures for m in stack], [m.captures for m in moves], "captures across chunks")
    eq(stack[150], moves[150], "middle")
    eq(stack.trailing_quiet(), 2, "quiet moves at the end")
    for i in range(299, -1, -1):
        eq(stack.pop(), moves[i], "pop %d" % i)
    eq(len(stack), 0, "empty again")
    assert stack._spare, "emptied chunks are kept for reuse"
    copy = MoveStack(names)
    copy.extend(moves[:20])
    eq(list(copy), moves[:20], "extend")


def test_copy_keeps_the_history():
    game, played = _play("mosona board=open", 30)
    twin = game.copy()
    eq(twin.move_stack, game.move_stack, "history")
    twin.pop()
    eq(len(game.move_stack), len(played), "the original keeps its moves")


def test_line_moves_are_moves():
    game = new_game("kolowis size=short")
    geometry = game.geometry
    moves = game.legal_moves()
    assert moves
    for move in moves:
        assert isinstance(move, Move)
        eq(move.kind, STEP, "kind")
        eq(move.captures, (), "captures")
        assert move.names is geometry.names
        twin = Move(STEP, move.path, (), geometry.names)
        assert move == twin and not (move != twin) and hash(move) == hash(twin)
        eq(repr(move), repr(twin), "repr")
    game = zuni.line.LineGame.from_position("mosona", "south s3 north m4", "south")
    jump = game.parse_move("s3xm4-m5")
    eq((jump.kind, jump.captures), (JUMP, (game.geometry.point("m4"),)), "jump")
    assert jump.names is game.geometry.names
    eq(jump, Move(JUMP, jump.path, jump.captures, game.geometry.names), "jump equals its Move")


def test_geometry_builds_what_only_drawing_needs_on_first_use():
    geometry = zuni.line.LineGeometry(16, True)
    made = geometry.__dict__
    for name in ("coords", "edges", "lines", "neighbors", "index"):
        assert name not in made, name
    eq(geometry.point("m17"), 32, "point() without the index")
    assert "index" not in made
    with raises(zuni.MoveParseError, "z9"):
        geometry.point("z9")
    eq(len(geometry.edges), 5 * 16 + 2 * 15, "edges")
    eq(geometry.coords[geometry.index["n1"]], (1.5, 1), "coords")
    eq(geometry.neighbors[geometry.index["n1"]], (1, 16, 17), "neighbours")
    assert geometry.index is geometry.index, "made once"
    eq(len(geometry.lines), 3 + 2 * 16 + 2, "lines")
    assert "coords" in geometry.__dict__, "kept once made"
    with raises(AttributeError, "no_such"):
        geometry.no_such  # noqa: B018  (the access is the test)
    # The engine's flat tables agree with the neighbours.
    _first, _targets, rows = zuni.line.adjacency(16, True)
    eq([tuple(r) for r in rows], list(geometry.neighbors), "adjacency")


def test_options_as_tables():
    eq(options_of("mosona")[0], ("board", ("lined", "open"), "lined"), "mosona board")
    eq(options_of("kolowis")[1], ("jumps", ("beyond", "straight", "pattern"), "straight"), "kolowis jumps")
    eq(options_of("kolowis")[5], ("quiet", None, "40"), "quiet")
    eq(options_of("awithlaknakwe")[2], ("order", None, "swne"), "order")
    eq(options_of("awithlaknakwe")[7][1], ("captures+arrivals", "captures"), "scoring")
    eq(sorted(zuni.GAME_OPTIONS), list(zuni.GAMES), "GAME_OPTIONS")
    eq(zuni.GAME_OPTIONS["mosona"], options_of("mosona"), "GAME_OPTIONS[mosona]")
    eq(zuni.ruleset.GAME_OPTIONS["kolowis"], options_of("kolowis"), "ruleset.GAME_OPTIONS")
    with raises(AttributeError):
        zuni.NO_SUCH_NAME  # noqa: B018  (the access is the test)
