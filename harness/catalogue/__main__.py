import sys

from harness.catalogue.cli import main

sys.exit(main())
