"""firmware_py/loopback.py: where mosquitto is (the demo, the MQTT tests and the benchmarks
run a private one)."""

from __future__ import annotations

from pathlib import Path

from firmware_py.loopback import find_mosquitto


def test_mosquitto_is_found_on_the_path_or_where_debian_puts_it(tmp_path: Path) -> None:
    assert find_mosquitto(lambda name: "/opt/bin/mosquitto") == "/opt/bin/mosquitto"
    assert find_mosquitto(lambda name: None, tmp_path / "absent") is None
    binary = tmp_path / "mosquitto"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    assert find_mosquitto(lambda name: None, binary) == str(binary)
