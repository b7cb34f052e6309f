"""Awithlaknakwe rules (docs/rules.md), on hand-made positions. Runs under CPython and MicroPython.

Squares are written by name; ``sq(c, r)`` names the square at (c, r) where the geometry
is the point (file a + (c + 1), rank r + 2). Positions: ``AwithGame.from_position``
with piece letters s w n e (warriors) and S W N E (bow priests).
"""

from check import eq, raises
from zuni import (
    DROP,
    EAST,
    NORTH,
    PASS,
    SOUTH,
    STEP,
    WEST,
    IllegalMoveError,
    MoveParseError,
    RulesetError,
    ZuniError,
    new_game,
    parse_ruleset,
    perft,
)
from zuni.awith import GEOMETRY, P_BOARD, P_GONE, P_HAND, P_NONE, AwithGame

G = "awithlaknakwe"
G4 = "awithlaknakwe players=4"
GC = "awithlaknakwe players=4 teams=combined"


def sq(c, r):
    return "abcdefghijklmn"[c + 1] + str(r + 2)


def pos(pieces, turn="south", rs=G, **kw):
    return AwithGame.from_position(rs, pieces, turn, **kw)


def texts(game):
    return sorted(m.text() for m in game.legal_moves())


def names(points):
    return sorted(GEOMETRY.names[p] for p in points)


def move(game, text):
    for m in game.legal_moves():
        if m.text() == text:
            return m
    raise AssertionError("%s is not among %r" % (text, texts(game)))


def dests(game, origin):
    """Sorted destinations of the legal steps from ``origin``."""
    return sorted(t.split("-")[1] for t in texts(game) if t.startswith(origin + "-"))


# -- board ----------------------------------------------------------------------


def test_168_squares_named_by_file_and_rank():
    eq(len(GEOMETRY), 168, "squares")
    eq(GEOMETRY.shape, "squares")
    expect = {"a5": (-1, 3), "n10": (12, 8), "e1": (3, -1), "j14": (8, 12), "b2": (0, 0), "m13": (11, 11)}
    for name in expect:
        eq(GEOMETRY.coords[GEOMETRY.point(name)], expect[name], name)
    for missing in ("a4", "a11", "d1", "k1", "d14", "k14", "n4", "n11", "a1", "o5", "b15"):
        with raises(MoveParseError, missing):
            GEOMETRY.point(missing)
    # Every square's name is its coordinates' name.
    for i in range(len(GEOMETRY)):
        c, r = GEOMETRY.coords[i]
        eq(GEOMETRY.names[i], sq(c, r))
    eq(len(set(GEOMETRY.names)), 168, "distinct names")


def test_homes():
    eq(names(GEOMETRY.homes[SOUTH]), ["e1", "f1", "g1", "h1", "i1", "j1"])
    eq(names(GEOMETRY.homes[NORTH]), ["e14", "f14", "g14", "h14", "i14", "j14"])
    eq(names(GEOMETRY.homes[WEST]), ["a10", "a5", "a6", "a7", "a8", "a9"])
    eq(names(GEOMETRY.homes[EAST]), ["n10", "n5", "n6", "n7", "n8", "n9"])


def test_start_positions():
    game = new_game(G)
    pieces, turn, priests = game.position()
    eq(turn, "south")
    eq(sorted(n for n in pieces if pieces[n] == "s"), names(GEOMETRY.homes[SOUTH]))
    eq(sorted(n for n in pieces if pieces[n] == "n"), names(GEOMETRY.homes[NORTH]))
    eq(len(pieces), 12)
    eq(priests, {"south": "none", "north": "none"})
    game4 = new_game(G4)
    pieces4 = game4.position()[0]
    eq(len(pieces4), 24)
    eq(sorted(n for n in pieces4 if pieces4[n] == "w"), names(GEOMETRY.homes[WEST]))
    eq(sorted(n for n in pieces4 if pieces4[n] == "e"), names(GEOMETRY.homes[EAST]))
    eq(game4.turn, SOUTH)
    eq(new_game(G + " first=north").turn, NORTH)
    eq(new_game(G4 + " order=enws").turn, EAST)
    eq(new_game(GC + " first=north").turn, NORTH)
    eq(texts(new_game(G))[:3], ["e1-d2", "e1-f2", "f1-e2"])


# -- moves ----------------------------------------------------------------------


def test_warrior_moves_diagonally_forward_for_each_side():
    # One warrior of each side on g7 = (5, 5); forward: South +r, North -r, West +c, East -c.
    expect = {
        "s": ("south", ["f8", "h8"]),
        "n": ("north", ["f6", "h6"]),
        "w": ("west", ["h6", "h8"]),
        "e": ("east", ["f6", "f8"]),
    }
    for letter in expect:
        side, want = expect[letter]
        game = pos({"g7": letter, "b2": "s", "m13": "n", "a5": "w", "n10": "e"}, side, G4)
        eq(dests(game, "g7"), want, "warrior of " + side)


def test_priest_moves_forward_sideways_and_diagonally_forward_never_backward():
    expect = {
        "S": ("south", ["f7", "f8", "g8", "h7", "h8"]),
        "N": ("north", ["f6", "f7", "g6", "h6", "h7"]),
        "W": ("west", ["g6", "g8", "h6", "h7", "h8"]),
        "E": ("east", ["f6", "f7", "f8", "g6", "g8"]),
    }
    for letter in expect:
        side, want = expect[letter]
        game = pos({"g7": letter, "b2": "s", "m13": "n", "a5": "w", "n10": "e"}, side, G4)
        eq(dests(game, "g7"), want, "priest of " + side)


def test_steps_need_an_empty_square_on_the_board():
    # m13 = (11, 11): South's forward diagonals (10, 12) and (12, 12) are off the board.
    game = pos({"m13": "s", "b2": "s", "a5": "s", "g7": "s", "f8": "n", "h8": "s", "c13": "n"})
    eq(dests(game, "m13"), [])
    eq(dests(game, "b2"), ["c3"])  # (-1, 1) is off the board
    eq(dests(game, "a5"), ["b6"])  # from the West extension onto the main board
    eq(dests(game, "g7"), [])  # f8 holds an enemy, h8 a friend: no capture by moving onto them
    # The South extension squares join the main board diagonally.
    eq(dests(pos({"e1": "s", "m13": "n"}), "e1"), ["d2", "f2"])
    eq(dests(pos({"e14": "n", "b2": "s"}, "north"), "e14"), ["d13", "f13"])


# -- custody ----------------------------------------------------------------------


def test_custody_in_each_diagonal_direction():
    # South's priest steps from g6 to g7 (5, 5); one sandwich per test, in direction d.
    for dc, dr in ((1, 1), (1, -1), (-1, -1), (-1, 1)):
        enemy = sq(5 + dc, 5 + dr)
        friend = sq(5 + 2 * dc, 5 + 2 * dr)
        game = pos({"g6": "S", enemy: "n", friend: "s", "m13": "n"})
        m = move(game, "g6-g7")
        eq(names(m.captures), [enemy], "custody towards %d,%d" % (dc, dr))
        game.push(m)
        eq(game.piece_at(GEOMETRY.point(enemy)), None, "captured piece removed")
        eq(game.piece_at(GEOMETRY.point(friend)), (SOUTH, 0), "friend stays")
        eq(game.taken[0], 1)


def test_custody_by_warrior_step_and_by_each_side():
    # North's warrior steps g8 -> f7 and takes South's e6 against North's d5.
    game = pos({"g8": "n", "e6": "s", "d5": "n", "b2": "s"}, "north")
    eq(names(move(game, "g8-f7").captures), ["e6"])
    # West (forward +c) steps f6 -> g7 and takes South's h8 against its partner North's i9.
    game = pos({"f6": "w", "h8": "s", "i9": "n", "b2": "e"}, "west", G4)
    eq(names(move(game, "f6-g7").captures), ["h8"])
    # East (forward -c) steps h6 -> g7 and takes North's f8 against East's e9.
    game = pos({"h6": "e", "f8": "n", "e9": "e", "b2": "s"}, "east", G4)
    eq(names(move(game, "h6-g7").captures), ["f8"])


def test_orthogonal_custody_only_with_custody_all():
    pieces = {"g6": "S", "h7": "n", "i7": "s", "f7": "n", "e7": "s", "m13": "n"}
    eq(names(move(pos(pieces), "g6-g7").captures), [])
    game = pos(pieces, rs=G + " custody=all")
    eq(names(move(game, "g6-g7").captures), ["f7", "h7"])
    # Forward and backward orthogonal lines too.
    pieces = {"f7": "S", "g8": "n", "g9": "s", "g6": "n", "g5": "s", "m13": "n"}
    eq(names(move(pos(pieces, rs=G + " custody=all"), "f7-g7").captures), ["g6", "g8"])
    eq(names(move(pos(pieces), "f7-g7").captures), [])


def test_several_captures_at_once():
    # The priest arrives on g7 with an enemy on all four diagonals, each backed by a friend.
    pieces = {"g6": "S", "m13": "n"}
    for dc, dr in ((1, 1), (1, -1), (-1, -1), (-1, 1)):
        pieces[sq(5 + dc, 5 + dr)] = "n"
        pieces[sq(5 + 2 * dc, 5 + 2 * dr)] = "s"
    game = pos(pieces)
    m = move(game, "g6-g7")
    eq(names(m.captures), ["f6", "f8", "h6", "h8"])
    before = bytes(game.board)
    game.push(m)
    eq(game.taken[0], 4)
    eq(game.prs[NORTH], P_HAND, "North lost warriors: its priest is available")
    eq(sorted(m.empties()), sorted(list(m.captures) + [GEOMETRY.point("g6")]))
    game.pop()
    eq(bytes(game.board), before, "pop restores every captured piece")
    eq(game.taken[0], 0)
    eq(game.prs[NORTH], P_NONE)


def test_moving_between_two_enemies_is_safe():
    # f8 and h6 are North's, on the diagonal through g7; South may step in and stays.
    game = pos({"f6": "s", "f8": "n", "h6": "n", "b2": "s", "m13": "n"})
    m = move(game, "f6-g7")
    eq(names(m.captures), [])
    game.push(m)
    eq(game.piece_at(GEOMETRY.point("g7")), (SOUTH, 0))
    eq(game.taken[1], 0)


def test_only_the_arriving_piece_captures():
    # A sandwich that already stands is no capture; a move elsewhere takes nothing.
    game = pos({"g7": "n", "f6": "s", "h8": "s", "b2": "s", "m13": "n"})
    for m in game.legal_moves():
        eq(names(m.captures), [], m.text())


def test_partner_pieces_count_as_friends():
    # South steps f6 -> g7; the North warrior on h8 has South's partner East on i9 behind.
    game = pos({"f6": "s", "h8": "n", "i9": "e", "a5": "w", "n5": "e"}, "south", G4)
    eq(names(move(game, "f6-g7").captures), ["h8"])
    # An enemy behind (West) does not help South.
    game = pos({"f6": "s", "h8": "n", "i9": "w", "a5": "w", "n5": "e"}, "south", G4)
    eq(names(move(game, "f6-g7").captures), [])
    # A partner is never captured: East between South's arrival square and South's piece.
    game = pos({"f6": "s", "h8": "e", "i9": "s", "a5": "w", "n5": "e"}, "south", G4)
    eq(names(move(game, "f6-g7").captures), [])


def test_priests_take_part_in_custody():
    # South's priest on i9 is the friend behind North's h8; North's priest can be taken.
    game = pos({"f6": "s", "h8": "n", "i9": "S", "m13": "n"})
    eq(names(move(game, "f6-g7").captures), ["h8"])
    game = pos({"f6": "s", "h8": "N", "i9": "s", "m13": "n"})
    eq(names(move(game, "f6-g7").captures), ["h8"])


def test_a_drop_captures_too():
    # South's priest in hand drops on f1; North's warrior on g2 is caught against h3.
    game = pos({"g2": "n", "h3": "s", "m13": "n"}, priests={"south": "hand"})
    m = move(game, "@f1")
    eq(m.kind, DROP)
    eq(m.path, (GEOMETRY.point("f1"),))
    eq(names(m.captures), ["g2"])
    game.push(m)
    eq(game.piece_at(GEOMETRY.point("f1")), (SOUTH, 1))
    eq(game.prs[SOUTH], P_BOARD)
    eq(game.prs[NORTH], P_HAND, "North's first loss")


def test_a_captured_priest_is_gone_for_good():
    # South takes North's priest on h8; later North loses a warrior: no priest comes back.
    game = pos({"f6": "s", "h8": "N", "i9": "s", "e13": "n", "f10": "s", "c13": "s"})
    eq(game.prs[NORTH], P_BOARD)
    m = move(game, "f6-g7")
    eq(names(m.captures), ["h8"])
    game.push(m)
    eq(game.prs[NORTH], P_GONE)
    eq(game.taken[0], 1)
    game.push_text("e13-d12")
    m = move(game, "f10-e11")
    eq(names(m.captures), ["d12"])
    game.push(m)
    eq(game.prs[NORTH], P_GONE, "a captured priest never comes back")
    eq(texts(game), ["pass"], "North has no piece and no priest to drop")
    game.pop()
    game.pop()
    game.pop()
    eq(game.prs[NORTH], P_BOARD, "undo brings the priest back")
    eq(game.piece_at(GEOMETRY.point("h8")), (NORTH, 1))


# -- priests: availability and ownership ----------------------------------------------


def test_priest_available_after_first_warrior_loss_two_players():
    # South takes North's first warrior; then North may drop on its own home row.
    game = pos({"f6": "s", "h8": "n", "i9": "s", "e14": "n", "f14": "n"})
    eq(game.prs[NORTH], P_NONE)
    game.push_text("f6-g7")
    eq(game.prs[NORTH], P_HAND)
    moves = texts(game)
    eq([t for t in moves if t[0] == "@"], ["@g14", "@h14", "@i14", "@j14"])
    eq([t for t in moves if t[0] != "@"], ["e14-d13", "e14-f13", "f14-e13", "f14-g13"])
    # The drop is North's own piece, moving in North's direction.
    game.push_text("@h14")
    eq(game.piece_at(GEOMETRY.point("h14")), (NORTH, 1))
    game.push_text("g7-f8")
    eq(dests(game, "h14"), ["g13", "g14", "h13", "i13", "i14"])
    # South never lost a warrior: no priest.
    eq(game.prs[SOUTH], P_NONE)


def test_no_drop_before_any_loss_and_none_when_home_is_full():
    game = new_game(G)
    eq([t for t in texts(game) if t[0] == "@"], [])
    game = pos({sq(c, -1): "s" for c in range(3, 9)}, priests={"south": "hand"})
    eq([t for t in texts(game) if t[0] == "@"], [], "home row full")


def test_team_priest_goes_to_the_partner_who_loses_first():
    # North takes South's e6 (South's first loss): South owns the team priest. Later West
    # takes East's g10: East gets nothing. South then drops on South's own home row.
    pieces = {"g8": "n", "e6": "s", "d5": "n", "e8": "w", "g10": "e", "h11": "n", "n5": "e", "e1": "s"}
    game = pos(pieces, "north", G4)
    eq(names(move(game, "g8-f7").captures), ["e6"])
    game.push_text("g8-f7")
    eq((game.prs[SOUTH], game.prs[EAST]), (P_HAND, P_NONE))
    game.push_text("n5-m6")
    eq(game.turn, SOUTH)
    eq([t for t in texts(game) if t[0] == "@"], ["@f1", "@g1", "@h1", "@i1", "@j1"])
    game.push_text("e1-f2")
    eq(names(move(game, "e8-f9").captures), ["g10"])
    game.push_text("e8-f9")
    eq((game.prs[SOUTH], game.prs[EAST]), (P_HAND, P_NONE))


def test_team_priest_ownership_modes():
    # West's warrior on e8 steps forward (+c) to f9; East's warrior on g10 lies between f9
    # and North's h11: East loses its first warrior.
    pieces = {"e8": "w", "g10": "e", "h11": "n", "n5": "e", "e1": "s", "b2": "n"}
    # priests=team, South already owns the team priest: East gets nothing.
    game = pos(pieces, "west", G4, priests={"south": "hand"})
    m = move(game, "e8-f9")
    eq(names(m.captures), ["g10"])
    game.push(m)
    eq((game.prs[SOUTH], game.prs[EAST]), (P_HAND, P_NONE), "team: the partner who lost first keeps it")
    # priests=team, nobody owns it yet: East earns it.
    game = pos(pieces, "west", G4)
    game.push_text("e8-f9")
    eq((game.prs[SOUTH], game.prs[EAST]), (P_NONE, P_HAND))
    # priests=each: East earns its own even though South has one.
    game = pos(pieces, "west", G4 + " priests=each", priests={"south": "hand"})
    game.push_text("e8-f9")
    eq((game.prs[SOUTH], game.prs[EAST]), (P_HAND, P_HAND))
    # A team priest that was captured is gone for the team: no new one for East.
    game = pos(pieces, "west", G4, priests={"south": "gone"})
    game.push_text("e8-f9")
    eq((game.prs[SOUTH], game.prs[EAST]), (P_GONE, P_NONE))
    # With priests=each a captured South priest does not stop East earning its own.
    game = pos(pieces, "west", G4 + " priests=each", priests={"south": "gone"})
    game.push_text("e8-f9")
    eq((game.prs[SOUTH], game.prs[EAST]), (P_GONE, P_HAND))
    # A side's second loss changes nothing.
    game = pos(pieces, "west", G4 + " priests=each", priests={"east": "hand"})
    game.push_text("e8-f9")
    eq(game.prs[EAST], P_HAND)


def test_east_owner_drops_on_east_home_and_moves_west():
    game = pos({"n5": "e", "e1": "s", "b2": "n", "a5": "w"}, "east", G4, priests={"east": "hand"})
    drops = [t for t in texts(game) if t[0] == "@"]
    eq(drops, ["@n10", "@n6", "@n7", "@n8", "@n9"])
    game.push_text("@n8")
    eq(game.piece_at(GEOMETRY.point("n8")), (EAST, 1))
    for _ in range(3):  # south, west, north move; then East's priest
        game.push(game.legal_moves()[0])
    eq(game.turn, EAST)
    eq(dests(game, "n8"), ["m7", "m8", "m9", "n7", "n9"])


def test_one_move_takes_first_warriors_of_both_partners():
    # North's priest steps h8 -> g7 (sideways for North) and takes South's f6 (against
    # North's e5) and East's h6 (against North's i5) at once.
    pieces = {"h8": "N", "f6": "s", "e5": "n", "h6": "e", "i5": "n", "a5": "w", "e1": "s", "n5": "e"}
    game = pos(pieces, "north", G4)
    m = move(game, "h8-g7")
    eq(names(m.captures), ["f6", "h6"])
    game.push(m)
    eq((game.prs[SOUTH], game.prs[EAST]), (P_HAND, P_NONE), "order swne: South first")
    game = pos(pieces, "north", G4 + " order=nesw")
    game.push_text("h8-g7")
    eq((game.prs[SOUTH], game.prs[EAST]), (P_NONE, P_HAND), "order nesw: East first")
    game = pos(pieces, "north", G4 + " priests=each")
    game.push_text("h8-g7")
    eq((game.prs[SOUTH], game.prs[EAST]), (P_HAND, P_HAND), "each: both")
    game = pos(pieces, "north", GC)
    game.push_text("h8-g7")
    eq((game.prs[SOUTH], game.prs[EAST]), (P_HAND, P_NONE), "combined: South before East in swne")


def test_combined_team_priest_enters_on_the_home_of_the_first_loser():
    # East lost the team's first warrior: the South+East team drops on East's home row,
    # and the priest moves West-wards (East's forward).
    game = pos({"g7": "s", "n5": "e", "m13": "n", "a5": "w"}, "south", GC, priests={"east": "hand"})
    moves = texts(game)
    eq([t for t in moves if t[0] == "@"], ["@n10", "@n6", "@n7", "@n8", "@n9"])
    eq([t for t in moves if t[0] != "@"], ["g7-f8", "g7-h8", "n5-m4", "n5-m6"])
    game.push_text("@n9")
    eq(game.piece_at(GEOMETRY.point("n9")), (EAST, 1))
    game.push_text("m13-l12")
    eq(dests(game, "n9"), ["m10", "m8", "m9", "n10", "n8"])


def test_combined_loss_earns_the_team_priest_once():
    # North+West take South's e6: the team priest is South's. Then West takes East's g10:
    # nothing more. The South+East team drops on South's home row.
    pieces = {"g8": "n", "e6": "s", "d5": "n", "e8": "w", "g10": "e", "h11": "n", "n5": "e"}
    game = pos(pieces, "north", GC)
    game.push_text("g8-f7")
    eq((game.prs[SOUTH], game.prs[EAST]), (P_HAND, P_NONE))
    eq("@e1" in texts(game), True)
    game.push_text("n5-m6")
    eq(game.turn, NORTH)
    m = move(game, "e8-f9")  # a West warrior, in the North+West turn
    eq(names(m.captures), ["g10"])
    game.push(m)
    eq((game.prs[SOUTH], game.prs[EAST]), (P_HAND, P_NONE))


# -- pass and turns -----------------------------------------------------------------


def test_forced_pass_only_when_no_move():
    # South's only warrior on m13 cannot move: South must pass; North moves on.
    game = pos({"m13": "s", "c13": "n"})
    moves = game.legal_moves()
    eq([m.text() for m in moves], ["pass"])
    eq(moves[0].kind, PASS)
    eq(moves[0].path, ())
    eq(moves[0].captures, ())
    game.push(moves[0])
    eq(game.turn, NORTH)
    eq(texts(game), ["c13-b12", "c13-d12"])
    with raises(IllegalMoveError, "pass"):
        game.parse_move("pass")


def test_a_drop_is_a_move_so_no_pass():
    # South's warrior is stuck but its priest is in hand: drops, not a pass.
    game = pos({"m13": "s", "c13": "n"}, priests={"south": "hand"})
    eq(texts(game), ["@e1", "@f1", "@g1", "@h1", "@i1", "@j1"])


def test_turn_order_four_players():
    for order in ("swne", "snwe", "enws"):
        game = new_game(G4 + " order=" + order)
        seen = []
        for _ in range(8):
            seen.append("swne"[game.turn])
            game.push(game.legal_moves()[0])
        eq("".join(seen), order * 2, "order=" + order)


def test_turn_order_combined_teams_move_any_team_warrior():
    game = new_game(GC)
    eq(game.turn, SOUTH)
    moves = texts(game)
    eq(len(moves), 24)
    eq("n5-m4" in moves and "e1-f2" in moves, True)
    game.push_text("n5-m4")  # an East warrior, in the South+East turn
    eq(game.turn, NORTH)
    moves = texts(game)
    eq("a5-b4" in moves and "e14-f13" in moves, True)
    game.push_text("a5-b4")
    eq(game.turn, SOUTH)
    game = new_game(GC + " first=north")
    eq(game.turn, NORTH)
    game.push(game.legal_moves()[0])
    eq(game.turn, SOUTH)


def test_first_north_two_players():
    game = new_game(G + " first=north")
    eq(game.turn, NORTH)
    eq(texts(game)[:2], ["e14-d13", "e14-f13"])
    game.push_text("e14-d13")
    eq(game.turn, SOUTH)


# -- end and score -------------------------------------------------------------------


def test_quiet_counter():
    # Priest moves and passes count; a warrior move or a drop resets the counter.
    game = pos({"g7": "S", "m13": "n", "b12": "n"}, rs=G + " quiet=4", priests={"north": "hand"})
    for text, quiet in (
        ("g7-g8", 1),  # priest move
        ("b12-c11", 0),  # warrior move
        ("g8-g9", 1),
        ("@e14", 0),  # drop
        ("g9-g10", 1),
        ("e14-e13", 2),
        ("g10-f10", 3),
    ):
        game.push_text(text)
        eq(game.quiet, quiet, text)
    eq(game.outcome(), None)
    game.push_text("e13-d13")
    eq(game.quiet, 4)
    eq(game.legal_moves(), [])
    eq(game.outcome().termination, "quiet")
    game.pop()
    eq(game.quiet, 3)
    eq(game.is_game_over(), False)
    # A capture resets it, even by a priest.
    game = pos({"g6": "S", "h8": "n", "i9": "s", "m13": "n"}, quiet=5)
    game.push_text("g6-g7")
    eq(game.quiet, 0)


def test_quiet_limit_ends_the_game():
    # North's warrior on b2 cannot move (both forward diagonals are off the board): North
    # passes, and passes count as quiet moves.
    game = pos({"g7": "S", "b2": "n"}, rs=G + " quiet=3")
    game.push_text("g7-g8")
    eq(texts(game), ["pass"])
    game.push_text("pass")
    eq(game.quiet, 2)
    game.push_text("g8-g9")
    eq(game.quiet, 3)
    eq(game.legal_moves(), [])
    out = game.outcome()
    eq(out.termination, "quiet")
    eq(out.scores, (0, 0))
    eq(out.result, "draw")
    eq(game.is_game_over(), True)
    with raises(IllegalMoveError, "over"):
        game.parse_move("g9-g10")


def test_end_when_no_player_can_move():
    # Both warriors are on the far edge: nobody can move. South sits on North's home.
    game = pos({"g14": "s", "b2": "n"}, "north")
    eq(game.legal_moves(), [])
    out = game.outcome()
    eq(out.termination, "blocked")
    eq(out.scores, (1, 0))
    eq(out.result, "south")
    eq(out.winner, 0)
    # scoring=captures: arrivals do not count.
    game = pos({"g14": "s", "b2": "n"}, "north", G + " scoring=captures", taken=(0, 2))
    out = game.outcome()
    eq(out.scores, (0, 2))
    eq(out.result, "north")


def test_scores_count_arrivals_only_on_the_owners_target():
    # Counted: South on North's home, East (warrior and priest) on West's home, North on
    # South's home, West on East's home. Not counted: West on North's home, South on
    # East's home.
    pieces = {"e14": "s", "f14": "w", "a5": "e", "a6": "E", "e1": "n", "n7": "w", "n9": "s"}
    game = pos(pieces, "south", G4, taken=(2, 1))
    eq(game.scores(), (2 + 3, 1 + 2))
    game = pos(pieces, "south", G4 + " scoring=captures", taken=(2, 1))
    eq(game.scores(), (2, 1))


def test_four_player_result_names():
    # West's c13 can still move (+c to d12): not over.
    game = pos({"e14": "s", "a5": "e", "c13": "w", "b2": "n"}, "south", G4)
    eq(game.is_game_over(), False)
    eq(texts(game), ["pass"])
    # Every piece faces the edge: over, and South (e14) and East (a5) each arrived.
    game = pos({"e14": "s", "a5": "e", "n5": "w", "b2": "n"}, "south", G4)
    eq(game.legal_moves(), [])
    out = game.outcome()
    eq(out.termination, "blocked")
    eq(out.scores, (2, 1))
    eq(out.result, "south+east")
    game = pos({"e14": "s", "a5": "e", "n5": "w", "b2": "n"}, "south", G4, taken=(0, 3))
    eq(game.outcome().result, "north+west")
    eq(game.team_names(), ("south+east", "north+west"))
    eq(new_game(G).team_names(), ("south", "north"))
    eq([game.team_of(s) for s in (SOUTH, WEST, NORTH, EAST)], [0, 1, 1, 0])


def test_resignation_ends_the_game_and_undo_reopens_it():
    game = new_game(G4)
    game.push_text("e1-f2")
    out = game.resign(WEST)
    eq(out.result, "south+east")
    eq(game.legal_moves(), [])
    game.pop()
    eq(game.is_game_over(), False)
    eq(len(game.legal_moves()), 12)


def test_count_moves_counts_without_making_moves():
    games = [
        new_game(G),
        new_game(GC),
        pos({"g6": "S", "m13": "n"}, "north", priests={"north": "hand"}),
        pos({"m13": "s", "c13": "n"}),  # a forced pass counts one
        pos({"g14": "s", "b2": "n"}, "north"),  # over: none
        pos({"g7": "S", "b2": "n"}, rs=G + " quiet=3", quiet=3),  # over by the quiet rule
    ]
    for game in games:
        eq(game.count_moves(), len(game.legal_moves()), repr(game.position()))
    eq([g.count_moves() for g in games], [12, 24, 7, 1, 0, 0])


def test_legal_captures_are_the_capturing_legal_moves():
    # The same moves in the same order, built without the others: warrior and priest
    # steps and priest drops that take, none in a position without a capture.
    games = [
        new_game(G),
        pos({"e5": "s", "h8": "s", "g7": "n", "j10": "n", "c9": "n"}, "south"),
        pos({"g6": "S", "m13": "n"}, "north", priests={"north": "hand"}),
    ]
    found = 0
    for game in games:
        expected = [m for m in game.legal_moves() if m.captures]
        eq(game.legal_captures(), expected, repr(game.position()))
        found += len(expected)
    assert found >= 1, found
    eq(games[0].legal_captures(), [])


# -- move text ---------------------------------------------------------------------


def test_move_text_round_trip():
    games = [
        new_game(G),
        new_game(GC),
        pos({"g6": "S", "m13": "n"}, "north", priests={"north": "hand"}),  # drops
        pos({"g6": "S", "h8": "n", "i9": "s", "m13": "n"}),  # a capture
        pos({"m13": "s", "c13": "n"}),  # a forced pass
    ]
    seen = ""
    for game in games:
        for m in game.legal_moves():
            again = game.parse_move(m.text())
            eq(again, m)
            eq(again.text(), m.text())
            eq(str(m), m.text())
            seen += m.text()[0]
    eq("@" in seen and "p" in seen, True, "drops and passes were checked")
    m = new_game(G).parse_move(" e1-f2 ")
    eq((m.kind, m.origin, m.dest), (STEP, GEOMETRY.point("e1"), GEOMETRY.point("f2")))


def test_move_text_errors():
    game = new_game(G)
    with raises(MoveParseError, "no jumps"):
        game.parse_move("e1xf2-g3")
    with raises(MoveParseError, "z9"):
        game.parse_move("z9-f2")
    with raises(MoveParseError, "a1"):
        game.parse_move("@a1")
    with raises(MoveParseError, "empty"):
        game.parse_move("  ")
    with raises(MoveParseError, "two points"):
        game.parse_move("e1-f2-g3")
    with raises(IllegalMoveError, "e1-e2"):
        game.parse_move("e1-e2")  # a warrior never moves straight
    with raises(IllegalMoveError, "@e1"):
        game.parse_move("@e1")  # no priest in hand
    with raises(IllegalMoveError, "pass"):
        game.parse_move("pass")  # South can move
    before = game.key()
    with raises(IllegalMoveError):
        game.push_text("e14-d13")  # North's piece, South to move
    eq(game.key(), before, "a refused move changes nothing")


# -- rulesets and positions ---------------------------------------------------------


def test_ruleset_options_and_errors():
    eq(str(parse_ruleset("awithlaknakwe teams=combined first=north players=4")), G4 + " first=north teams=combined")
    bad = (
        ("awithlaknakwe players=4 teams=combined priests=each", "priests=each"),
        ("awithlaknakwe order=snwe", "players=4"),
        ("awithlaknakwe teams=combined", "players=4"),
        ("awithlaknakwe priests=each", "players=4"),
        ("awithlaknakwe players=4 first=north", "order"),
        ("awithlaknakwe players=4 teams=combined order=snwe", "teams=separate"),
        ("awithlaknakwe players=4 order=swnn", "swnn"),
        ("awithlaknakwe players=4 order=swn", "swn"),
        ("awithlaknakwe players=3", "players"),
        ("awithlaknakwe custody=none", "custody"),
        ("awithlaknakwe scoring=arrivals", "scoring"),
        ("awithlaknakwe quiet=0", "quiet"),
        ("awithlaknakwe quiet=x", "quiet"),
        ("awithlaknakwe jumps=straight", "jumps"),
    )
    for text, fragment in bad:
        with raises(RulesetError, fragment):
            parse_ruleset(text)
    for text in (
        "awithlaknakwe players=4 priests=each order=enws custody=all quiet=10 scoring=captures",
        "awithlaknakwe players=4 teams=combined priests=team first=north",
        "awithlaknakwe first=north",
    ):
        eq(type(new_game(text)).__name__, "AwithGame", text)


def test_from_position_errors():
    bad = (
        ({"z1": "s"}, "south", G, "z1"),
        ({"g7": "x"}, "south", G, "'x'"),
        ({"g7": "w"}, "south", G, "west"),
        ({"g7": "S", "g8": "S"}, "south", G, "two bow priests"),
        ({sq(c, 5): "s" for c in range(7)}, "south", G, "more than 6"),
        ({"g7": "s"}, "west", G, "west"),
        ({"g7": "s"}, "east", GC, "team"),
    )
    for pieces, turn, rs, fragment in bad:
        with raises(ZuniError, fragment):
            AwithGame.from_position(rs, pieces, turn)
    with raises(ZuniError, "share one bow priest"):
        AwithGame.from_position(G4, {"g7": "s"}, "south", priests={"south": "hand", "east": "hand"})
    with raises(ZuniError, "on the board"):
        AwithGame.from_position(G, {"g7": "S"}, "south", priests={"south": "hand"})
    with raises(ZuniError, "maybe"):
        AwithGame.from_position(G, {"g7": "s"}, "south", priests={"south": "maybe"})
    # Allowed with priests=each.
    AwithGame.from_position(G4 + " priests=each", {"g7": "s"}, "south", priests={"south": "hand", "east": "hand"})


def test_position_round_trip():
    pieces = {"g7": "S", "e1": "s", "n8": "e", "a6": "W", "e14": "n"}
    game = pos(pieces, "west", G4 + " priests=each", priests={"north": "gone", "east": "hand"})
    got, turn, priests = game.position()
    eq(got, pieces)
    eq(turn, "west")
    eq(priests, {"north": "gone", "east": "hand"})
    again = pos(got, turn, G4 + " priests=each", priests=priests)
    eq(again.key(), game.key())


# -- undo, copy, key ---------------------------------------------------------------


def test_push_pop_restores_everything():
    pieces = {"g6": "S", "m13": "n"}
    for dc, dr in ((1, 1), (1, -1), (-1, -1), (-1, 1)):
        pieces[sq(5 + dc, 5 + dr)] = "n"
        pieces[sq(5 + 2 * dc, 5 + 2 * dr)] = "s"
    game = pos(pieces, rs=G + " quiet=7", taken=(3, 1))
    key = game.key()
    order = texts(game)
    for m in game.legal_moves():
        game.push(m)
        # and a reply, to undo two levels
        replies = game.legal_moves()
        if replies:
            game.push(replies[-1])
            game.pop()
        eq(game.pop(), m)
        eq(game.key(), key, m.text())
        eq(texts(game), order, "move order after undo")
    eq(game.ply(), 0)


def test_copy_is_independent():
    game = new_game(GC)
    game.push_text("e1-f2")
    other = game.copy()
    eq(other.key(), game.key())
    other.push(other.legal_moves()[0])
    eq(game.ply(), 1)
    eq(other.ply(), 2)
    other.pop()
    other.pop()
    eq(other.key(), new_game(GC).key())
    eq(game.move_stack[0].text(), "e1-f2")


def test_key_holds_counters_and_priest_rights():
    a = pos({"g7": "s", "m13": "n"})
    b = pos({"g7": "s", "m13": "n"}, quiet=1)
    c = pos({"g7": "s", "m13": "n"}, priests={"south": "hand"})
    d = pos({"g7": "s", "m13": "n"}, "north")
    eq(len({a.key(), b.key(), c.key(), d.key()}), 4)
    eq(a.key(), pos({"g7": "s", "m13": "n"}).key())


# -- perft --------------------------------------------------------------------------

# Checked against the independent generator tests/refgen_awith.py (test_rules_awith_props).
PERFT = (
    (G, (12, 144, 1632, 18496)),
    (G + " first=north", (12, 144, 1632, 18496)),
    (G4, (12, 144, 1728, 20736)),
    (G4 + " order=snwe", (12, 144, 1728, 20736)),
    (GC, (24, 576, 13440)),
)

# Positions with contact: captures, drops, priests, partners. (ruleset, pieces, turn,
# priests, perft counts from depth 1).
PERFT_POSITIONS = (
    (
        G + " custody=all",
        {"f6": "s", "h8": "n", "i9": "s", "g6": "S", "e8": "n", "d9": "n", "h6": "n", "f4": "s", "e5": "s", "c13": "n"},
        "south",
        {"north": "hand"},
        (9, 129, 1248, 16714),
    ),
    (
        G4,
        {
            "f6": "s",
            "h8": "n",
            "i9": "e",
            "e8": "w",
            "g10": "e",
            "h11": "n",
            "h6": "e",
            "i5": "n",
            "f9": "W",
            "d5": "s",
        },
        "south",
        {"south": "hand"},
        (10, 50, 240, 1152, 10213),
    ),
    (
        G4 + " priests=each order=nesw",
        {
            "f6": "s",
            "h8": "n",
            "i9": "e",
            "e8": "w",
            "g10": "e",
            "h11": "n",
            "h6": "e",
            "i5": "n",
            "f9": "W",
            "d5": "s",
        },
        "north",
        {"south": "hand", "east": "gone"},
        (5, 20, 194, 1019, 6104),
    ),
    (
        GC,
        {
            "f6": "s",
            "h8": "n",
            "i9": "e",
            "e8": "w",
            "g10": "e",
            "h11": "n",
            "h6": "e",
            "i5": "n",
            "g7": "E",
            "d5": "s",
        },
        "north",
        {},
        (6, 64, 421, 4820),
    ),
)


def test_perft_start_positions():
    for rs, counts in PERFT:
        game = new_game(rs)
        for depth in range(len(counts)):
            eq(perft(game, depth + 1), counts[depth], "%s perft(%d)" % (rs, depth + 1))
        eq(game.ply(), 0)


def test_perft_positions_with_contact():
    for rs, pieces, turn, priests, counts in PERFT_POSITIONS:
        game = AwithGame.from_position(rs, pieces, turn, priests=priests)
        key = game.key()
        for depth in range(len(counts)):
            eq(perft(game, depth + 1), counts[depth], "%s %r perft(%d)" % (rs, pieces, depth + 1))
        eq(game.key(), key)


def test_agreed_end_by_counting_uses_the_score():
    # North has more pieces on the board, South has taken more: the score decides.
    game = AwithGame.from_position("awithlaknakwe", {"f5": "s", "c8": "n", "d9": "n", "k9": "n"}, "south", taken=(3, 1))
    outcome = game.agree("count")
    eq(outcome.termination, "agreed-count")
    eq(outcome.scores, (3, 1))
    eq(outcome.result, "south")
