"""The gateway side of the harness: OpenRouter client, recording proxy, simulator."""
