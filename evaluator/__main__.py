from evaluator.cli import main

raise SystemExit(main())
