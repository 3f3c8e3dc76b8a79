"""Publishing: the results site rendered from `evidence/`, and the frozen-round tag."""
