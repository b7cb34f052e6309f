"""The link to the board over USB serial (docs/protocol.md): ``client.BoardLink`` (the
session: hello, events, requests), ``port`` (the serial port, its discovery and framing),
``requests`` (numbered requests, resends, replies) and ``mirror`` (the host's pure mirror
of the board's game, fed by the board's frames)."""
