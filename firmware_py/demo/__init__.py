"""``scoreboard demo``: a short tournament day on this machine, and the example games.

- ``command``: the command line (options, help) and which demo they ask for;
- ``orchestration``: the tournament day's processes (private mosquitto, offices, halls),
  their timeouts, the work dir and the final tables;
- ``narration``: what the demo prints of a match, from its events (pure);
- ``journals``: following the halls' journals while they play;
- ``tournaments``, ``configs``, ``processes``, ``tables``, ``workdir``: what is played, how
  each piece is configured and started, the offices' tables and the ``--out`` folder;
- ``examples``: ``--examples [--pictures DIR]``, the example games through the core.
"""
