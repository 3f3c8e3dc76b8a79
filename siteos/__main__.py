from siteos.cli import main

raise SystemExit(main())
