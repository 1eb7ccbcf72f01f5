"""`python -m office`: the office command."""

from office.cli import main

raise SystemExit(main())
