"""`python -m office`: the office command."""

from office.cli.main import main

raise SystemExit(main())
