"""The hardware generator (`zuni board`): from a layout (``zuniboard.games.layouts``) to
the circuit model (``circuit``) and its checks (``erc``), the netlist, BOM, power budget,
schematic, perfboard and mechanical files; ``generate`` writes them all. See
hardware/README.md."""
