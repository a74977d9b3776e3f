"""`python -m clawd` is `clawd-browser`."""

from clawd.cli.main import main

raise SystemExit(main())
