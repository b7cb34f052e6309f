"""The board <-> host link (docs/protocol.md): one codec for both sides.

- ``zuni_link.codec``: framing (``encode``, ``decode``, ``LineAssembler``), arguments,
  the game digest. Runs on the board and on the host.
- ``zuni_link.commands``: the one table of host commands (arguments, flags, app handlers).
- ``zuni_link.session``: ``BoardSession``, the board side (reliable moves, hello and
  sync, bounded output queue, heartbeats, error replies).

The host side is ``zuniboard.link.client.BoardLink``.
"""
