"""Game records of the host: the SQLite database (`db`), the text and JSON record formats
(`formats`), SVG diagrams (`svg`) and terminal drawings (`text`). See docs/records.md."""
