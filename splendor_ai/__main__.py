"""`python -m splendor_ai ...` is the `splendor` command."""
from .cli import main

raise SystemExit(main())
