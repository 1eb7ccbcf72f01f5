"""Regenerate the reviewed expected outputs of the example games.

    python examples/replay/regenerate.py

Run it only after a deliberate change of behaviour, then review the diff of
*.expected.jsonl line by line: tests/test_examples.py compares against these files.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    index = tomllib.loads((HERE / "index.toml").read_text(encoding="utf-8"))
    for example in index["example"]:
        args = [sys.executable, "-m", "firmware_py.cli", "replay", str(HERE / example["script"]),
                "--preset", example["preset"], "--stage", example["stage"]]
        for t in example["at"]:
            args += ["--at", str(t)]
        out = subprocess.run(args, check=True, capture_output=True, text=True,
                             cwd=HERE.parent.parent).stdout
        target = HERE / example["script"].replace(".jsonl", ".expected.jsonl")
        target.write_text(out, encoding="utf-8")
        print(f"wrote {target.name}: {len(out.splitlines())} snapshots")
    return 0


if __name__ == "__main__":
    sys.exit(main())
