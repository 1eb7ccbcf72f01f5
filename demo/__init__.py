"""``arena-demo``: a short tournament day on this machine, and the example games.

- ``command``: the command line (options, help) and which demo they ask for;
- ``orchestration``: the tournament day's processes (private mosquitto, the event's
  office, the halls), their timeouts, the work dir and the final tables;
- ``narration``: what the demo prints of a match, from its events (pure);
- ``journals``: following the halls' journals while they play;
- ``tournaments``, ``configs``, ``processes``, ``tables``, ``lots``, ``workdir``: what is
  played (the event), how each piece is configured and started, the office's tables and
  drawing of lots, and the ``--out`` folder;
- ``examples``: ``--examples [--pictures DIR]``, the example games through the core.
"""
