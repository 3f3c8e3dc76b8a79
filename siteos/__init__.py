"""The project's one command line, `siteos <command> [arguments]` (see `siteos.cli`)."""
