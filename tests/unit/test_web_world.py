"""The browser page's world model: whose disk stands where (host side, no board)."""

from __future__ import annotations

import pytest

import zuni
from zuni.position import parse_position
from zuniboard.link.mirror import disks_of
from zuniboard.web.world import Narrator, UnknownPoint, World, WorldError, inventory


def test_start_position_and_reserve() -> None:
    start, reserve = inventory("mosona")
    assert len(start) == 24 and reserve == []
    world = World.for_ruleset("mosona")
    assert world.pieces["s3"].side == "south" and world.pieces["n1"].side == "north"
    assert "m5" not in world.pieces
    # Awithlaknakwe: warriors on the home rows, one bow priest per player beside the board.
    world = World.for_ruleset("awithlaknakwe")
    assert len(world.pieces) == 12
    assert sorted((p.side, p.kind) for p in world.tray) == [("north", "priest"), ("south", "priest")]
    # Four players sharing a priest per team: two priests; priests=each: four.
    _, team = inventory("awithlaknakwe players=4")
    _, each = inventory("awithlaknakwe players=4 priests=each")
    assert len(team) == 2 and len(each) == 4


def test_lift_place_discard_take() -> None:
    world = World.for_ruleset("mosona")
    disk = world.lift("s3")
    assert world.hand == [disk] and "s3" not in world.pieces
    assert world.place("m5") is disk and world.pieces["m5"] is disk
    captured = world.lift("m4")
    assert world.discard() is captured and world.tray == [captured] and world.hand == []
    again = world.take(side="north")
    assert again is captured and world.hand == [captured]
    # Two disks in the hand: place picks the one named, else the last lifted.
    other = world.lift("s4")
    assert world.place("m4", captured.id) is captured and world.hand == [other]


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (lambda w: w.lift("m5"), "no disk on m5"),
        (lambda w: w.lift("zz"), "unknown point 'zz'"),
        (lambda w: w.place("m5"), "the hand is empty"),
        (lambda w: (w.lift("s3"), w.place("s4")), "s4 is already occupied"),
        (lambda w: (w.lift("s3"), w.place("m5", 999)), "disk 999 is not in the hand"),
        (lambda w: w.take(side="east"), "no east in the tray"),
        (lambda w: w.discard(), "the hand is empty"),
    ],
)
def test_refused_actions_name_the_input(action: object, message: str) -> None:
    world = World.for_ruleset("mosona")
    with pytest.raises(WorldError, match=message):
        action(world)  # type: ignore[operator]


def test_refused_action_changes_nothing() -> None:
    world = World.for_ruleset("mosona")
    world.lift("s3")
    before = world.as_json()
    with pytest.raises(UnknownPoint):
        world.place("x9")
    with pytest.raises(WorldError):
        world.place("s4")
    assert world.as_json() == before


def test_follow_a_move_made_elsewhere() -> None:
    """Another client of the control channel lifts s3, puts it on m5, takes m4 off."""
    world = World.for_ruleset("mosona")
    mover = world.pieces["s3"].id
    victim = world.pieces["m4"].id
    assert world.follow(["s3"], [], now_s=10.0)
    assert world.follow([], ["m5"], now_s=10.2)
    assert world.follow(["m4"], [], now_s=10.5)
    assert world.pieces["m5"].id == mover
    assert [p.id for p in world.tray] == [victim] and world.hand == []
    # Much later, a disk appearing is not the captured one coming back as "the same move":
    # it comes from the tray by the start position's hint (here: nothing else is there).
    assert world.follow([], ["m4"], hint={"m4": ("north", "man")}, now_s=60.0)
    assert world.pieces["m4"].id == victim


def test_follow_bulk_setup_uses_the_start_position() -> None:
    world = World.for_ruleset("mosona", on_board=False)
    start = world.start_hint("mosona")
    world.follow([], sorted(start), hint=start, now_s=0.0)
    assert {n: (p.side, p.kind) for n, p in world.pieces.items()} == start
    assert world.tray == []


def test_follow_a_priest_entry_and_an_unknown_disk() -> None:
    world = World.for_ruleset("awithlaknakwe")
    homes = World.home_points("awithlaknakwe")
    hint = world.start_hint("awithlaknakwe")
    warrior = world.pieces["g1"].id
    world.follow(["g1"], [], hint, homes, now_s=0.0)
    world.follow([], ["f2"], hint, homes, now_s=0.2)
    assert world.pieces["f2"].id == warrior
    # Later a disk arrives on South's home row: South's bow priest entering.
    world.follow([], ["g1"], hint, homes, now_s=100.0)
    assert (world.pieces["g1"].side, world.pieces["g1"].kind) == ("south", "priest")
    # An empty tray: a disk nobody knows.
    world = World.for_ruleset("mosona")
    world.follow([], ["m5"], now_s=0.0)
    assert world.pieces["m5"].side == "unknown"


def test_setup_plan_and_restock() -> None:
    world = World.for_ruleset("mosona")
    world.lift("s3")
    world.place("m5")
    world.lift("m4")
    world.discard()
    clear, put = world.setup_plan("mosona")
    assert clear == ["m5"]
    assert sorted(p for p, _, _ in put) == ["m4", "s3"]
    # Four armies on the 168-square board need more disks than two.
    world = World.for_ruleset("awithlaknakwe")
    world.restock("awithlaknakwe players=4")
    sides = sorted({p.side for p in list(world.pieces.values()) + world.tray})
    assert sides == ["east", "north", "south", "west"]
    assert len(world.pieces) + len(world.tray) == 24 + 2
    world.restock("awithlaknakwe")
    assert len(world.pieces) + len(world.tray) == 12 + 2


def _sides(world: World) -> dict[str, tuple[str, str]]:
    return {n: (p.side, p.kind) for n, p in world.pieces.items()}


def _set_counts(world: World) -> dict[tuple[str, str], int]:
    counts: dict[tuple[str, str], int] = {}
    for piece in list(world.pieces.values()) + world.hand + world.tray:
        counts[(piece.side, piece.kind)] = counts.get((piece.side, piece.kind), 0) + 1
    return counts


@pytest.mark.parametrize(
    "ruleset, position",
    [
        # m4 is North's at the start, South's here: the disk left standing there is wrong.
        ("kolowis size=short", "kolowis size=short | south to move | south m4 s6 | north n3"),
        # North's warriors' squares at the start hold South's priest and warrior here.
        ("awithlaknakwe", "awithlaknakwe | south to move | south g13 f14 priest e13 | north g1 priest hand"),
    ],
)
def test_settle_gives_each_disk_the_side_of_the_games_position(ruleset: str, position: str) -> None:
    """A game set up from a position over the start one: the disks left standing keep the
    start's sides until the world settles on the game's position (whose piece is where)."""
    world = World.for_ruleset(ruleset)
    counts = _set_counts(world)
    disks = disks_of(parse_position(position))
    world.follow([n for n in world.occupied() if n not in disks], [], now_s=0.0)
    world.follow([], [n for n in disks if n not in world.pieces], world.start_hint(ruleset), now_s=100.0)
    want = {n: (sk[0], sk[1]) for n, sk in disks.items()}
    assert sorted(world.pieces) == sorted(disks) and _sides(world) != want  # the bug: start's sides
    assert world.settle(disks)
    assert _sides(world) == want
    assert _set_counts(world) == counts  # disks exchanged with the tray's, none made or lost
    assert not world.settle(disks)  # settled: nothing more to do


def test_settle_waits_until_the_disks_stand_on_the_games_points() -> None:
    world = World.for_ruleset("mosona")
    game = zuni.new_game("mosona")
    game.push_text("s3xm4-m5")
    disks = disks_of(game)
    before = _sides(world)
    world.lift("s3")  # the move half made: not the game's position, not the start's either
    assert not world.settle(disks) and _sides(world) == {n: sk for n, sk in before.items() if n != "s3"}
    assert not world.settle(None)  # no game known (the narrator lost track)


def test_the_narrators_disks_follow_a_position_and_a_take_back() -> None:
    """`zuni sim`: the narrator's game gives whose disk is where: from the board's
    position, after a move, and after the move is taken back."""
    position = "kolowis size=short | south to move | south m4 s6 | north n3 | quiet 0"
    narrator = Narrator()
    status = {"game": "g1", "ruleset": "kolowis size=short", "position": position, "moves": 0, "phase": "play"}
    start = narrator.follow(status)["disks"]
    assert start == {"m4": ["south", "man"], "s6": ["south", "man"], "n3": ["north", "man"]}
    game = parse_position(position)
    move = game.legal_moves()[0]
    game.push(move)
    occupancy = "".join("1" if v else "0" for v in game.occupancy())
    after = narrator.follow(dict(status, moves=1, occupancy=occupancy))
    assert after["moves"] == [move.text()] and after["disks"] == disks_of(game)
    assert narrator.follow(dict(status, moves=0, phase="setup"))["disks"] == start
