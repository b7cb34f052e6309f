"""`zuni log replay`: a logged game stepped through on the board or in the terminal.

``cursor.ReplayCursor`` is the position in the game, ``control.ReplayController`` the
pure logic of the keys and the board's buttons, ``driver.ReplayDriver`` runs it against
the link; ``mistakes`` says in words what the analysis found. See docs/records.md."""
