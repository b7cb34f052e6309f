"""`zuni play`: a game on the board (or the virtual board) against people or the computer.

The logic is ``session.PlaySession`` (link events in, log and board requests out, the
computer's thinking in a worker thread); ``terminal`` draws it and reads keys;
``connect`` finds the board. The session never prints: it reports to a ``PlayUI``.
"""
