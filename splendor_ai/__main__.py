"""`python -m splendor_ai ...` is the `splendor` command."""
from .interfaces.cli import main

raise SystemExit(main())
