from mdmark.cli.main import main

raise SystemExit(main())
