"""The run side: gateway client, recording proxy, simulator, OpenCode adapter, sandbox, sessions."""
