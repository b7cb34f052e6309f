"""Learning the games: lessons (`zuni learn`) and puzzles (`zuni puzzle`)."""
