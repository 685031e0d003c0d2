from mdmark.cli import main

raise SystemExit(main())
