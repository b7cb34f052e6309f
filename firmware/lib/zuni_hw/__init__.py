"""Drivers: ``pico`` (the real Raspberry Pi Pico), ``virtual`` (the unix port's virtual
board: control channel, pty link, littlefs flash image) and ``port`` (the non-blocking
serial port both use for the link).

Driver classes take their pins, buses and streams as constructor arguments, so the tests
drive them with explicit fakes under both interpreters; only the ``make_*`` factories
import ``machine``.
"""
