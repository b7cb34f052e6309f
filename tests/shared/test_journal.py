"""The game journal (zuni_board.journal) on a real filesystem: records, torn writes,
take-backs, ends, resume, pruning, bad input."""

from board_helpers import remove_dir, temp_dir

from check import eq, raises
from zuni_board.journal import Journal, JournalError, crc16, seal, unseal


def _file_text(j):
    f = open(j.path)
    try:
        return f.read()
    finally:
        f.close()


def _write(path, text):
    f = open(path, "w")
    try:
        f.write(text)
    finally:
        f.close()


def test_crc16_check_value():
    eq(crc16("123456789"), 0x29B1)


def test_seal_and_unseal():
    line = seal("M 0 s3xm4-m5")
    eq(line[-1], "\n")
    eq(unseal(line), "M 0 s3xm4-m5")
    eq(unseal(line[:-1]), None, "no line end: torn")
    eq(unseal(line.replace("s3", "s4")), None, "changed body")
    eq(unseal("garbage\n"), None)


def test_moves_are_appended_and_resumed():
    d = temp_dir()
    j = Journal(d)
    gid = j.start("mosona")
    j.move(0, "s3xm4-m5")
    j.move(1, "n5xm5-m4")
    text = _file_text(j)
    eq(text.count("\n"), 3, "header and one line per move")
    assert text.startswith("Z2 " + gid + " 1 mosona*")  # history version 1: the first game
    found = Journal(d).resume()
    eq(found, (gid, "mosona", ["s3xm4-m5", "n5xm5-m4"], None))
    remove_dir(d)


def test_torn_last_write_is_dropped_and_the_file_repaired():
    d = temp_dir()
    j = Journal(d)
    gid = j.start("kolowis size=short")
    j.move(0, "s4-m5")
    good = _file_text(j)
    # Power cut in the middle of the second record.
    _write(j.path, good + seal("M 1 n5xm5-s4")[:7])
    j2 = Journal(d)
    eq(j2.resume(), (gid, "kolowis size=short", ["s4-m5"], None))
    eq(_file_text(j2), good, "the torn record is gone from the file")
    # Appending after the repair gives a readable journal.
    j2.move(1, "n5xm5-s4")
    eq(Journal(d).resume()[2], ["s4-m5", "n5xm5-s4"])
    remove_dir(d)


def test_corrupted_record_and_what_follows_are_dropped():
    d = temp_dir()
    j = Journal(d)
    j.start("mosona")
    j.move(0, "s3xm4-m5")
    text = _file_text(j)
    _write(j.path, text.replace("s3xm4", "s3xm5") + seal("M 1 n5xm5-m4"))
    eq(Journal(d).resume()[2], [])
    remove_dir(d)


def test_record_out_of_order_is_dropped():
    d = temp_dir()
    j = Journal(d)
    j.start("mosona")
    j.move(0, "s3xm4-m5")
    _write(j.path, _file_text(j) + seal("M 5 n5xm5-m4"))
    eq(Journal(d).resume()[2], ["s3xm4-m5"])
    remove_dir(d)


def test_takeback_and_end_records():
    d = temp_dir()
    j = Journal(d)
    j.start("mosona")
    j.move(0, "s3xm4-m5")
    j.move(1, "n5xm5-m4")
    j.takeback(1)
    eq(Journal(d).resume()[2], ["s3xm4-m5"])
    j.end("resign", "north")
    eq(Journal(d).resume()[3], ("resign", "north"))
    j.end("clear", "")
    eq(Journal(d).resume()[3], None)
    remove_dir(d)


def test_newest_game_is_resumed_and_old_games_pruned():
    d = temp_dir()
    j = Journal(d, keep=3)
    ids = []
    for _ in range(5):
        ids.append(j.start("mosona"))
        j.move(0, "s3xm4-m5")
    eq(len(j.numbers()), 3, "only the newest games are kept")
    eq(j.numbers(), [3, 4, 5])
    eq(Journal(d).resume()[0], ids[-1])
    assert ids[-1].startswith("00005-"), ids[-1]
    assert j.size() > 0
    remove_dir(d)


def test_empty_or_missing_directory_resumes_nothing():
    d = temp_dir()
    eq(Journal(d).resume(), None)
    eq(Journal(d + "/nothing-here").resume(), None)
    remove_dir(d)


def test_bad_input_is_refused_by_name():
    d = temp_dir()
    j = Journal(d)
    with raises(JournalError, "start"):
        j.move(0, "s3xm4-m5")
    j.start("mosona")
    with raises(JournalError, "a b"):
        j.move(1, "a b")
    with raises(JournalError, "keep"):
        Journal(d, keep=0)
    with raises(JournalError, "ruleset"):
        j.start("mosona\nM 0 x")
    remove_dir(d)


def test_history_version_survives_a_reset_a_rewrite_and_the_old_format():
    d = temp_dir()
    j = Journal(d)
    j.start("mosona")
    eq(j.version, 1, "the first game")
    j.move(0, "s3xm4-m5")
    j.move(1, "n5xm5-m4")
    j.takeback(1)
    j.move(1, "m6xm5-m4")
    eq(j.version, 2, "a take-back is a cut")
    j2 = Journal(d)
    j2.resume()
    eq(j2.version, 2, "after a reset")
    j2.rewrite(["s3xm4-m5", "m6xm5-m4"])  # a failing flash's repair writes the game whole
    j3 = Journal(d)
    eq(j3.resume()[2], ["s3xm4-m5", "m6xm5-m4"])
    eq(j3.version, 2, "the rewritten header keeps it")
    j3.start("kolowis")
    eq(j3.version, 3, "a new game is a cut")
    # A game file of the format before history versions reads as version 0.
    with open(j3.path_of(9), "w") as f:
        f.write(seal("Z1 00009-abcd mosona") + seal("M 0 s3xm4-m5") + seal("U 0"))
    j4 = Journal(d)
    eq(j4.resume(), ("00009-abcd", "mosona", [], None))
    eq(j4.version, 1, "one take-back since")
    remove_dir(d)


def test_a_long_game_is_read_across_chunks_and_a_bad_byte_is_a_tear():
    d = temp_dir()
    j = Journal(d)
    j.start("kolowis")
    texts = ["m%d-long-text-%s" % (i, "x" * (i % 37)) for i in range(120)]  # lines across 256-byte reads
    for i in range(len(texts)):
        j.move(i, texts[i])
    found = Journal(d).resume()
    eq(list(found[2]), texts)
    eq((len(found[2]), found[2][119], found[2][-1], found[2].texts(3, 5)), (120, texts[119], texts[119], texts[3:5]))
    with open(j.path, "ab") as f:
        f.write(b"M 120 \xff\xfe-bad*0000\n")  # not UTF-8: a torn record, dropped
    eq(list(Journal(d).resume()[2]), texts)
    remove_dir(d)
