"""The pure core: game rules, clock and match state machine.

Standard library only; no I/O, no threads, never reads the OS clock (tests/core/test_purity.py
enforces it). Time comes in with every command as integer nanoseconds of monotonic time.
"""
