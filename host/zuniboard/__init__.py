"""The zuniboard PC companion: talks to the board, plays the computer, keeps game logs."""

__version__ = "0.1.0"
