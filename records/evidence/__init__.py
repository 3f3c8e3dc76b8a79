"""Every persisted evidence record, one module per evidence area."""
