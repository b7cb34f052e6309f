"""The games as the host shows them, beyond the rules engine (``zuni``): the board layouts
(``layouts``), the clocks (``clock_view``) and what the game says to a player (``words``).
Shared by the play session, the browser page, replay and the hardware generator."""
