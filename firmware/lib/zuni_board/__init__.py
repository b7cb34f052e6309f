"""The board application: layout, debounce, move inference, LED language, journal, controller."""
