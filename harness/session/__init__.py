"""One agent session: worktree, sandbox profile, process, upstream choice, evidence."""
