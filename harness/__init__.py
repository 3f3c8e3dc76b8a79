"""The run side: freeze, gateway client, recording proxy, simulator, agents, sandboxed sessions.

The package API other packages may use (publish's round tag): the frozen-input hashes.
"""

from harness.freeze import current_inputs, evaluator_sha256, scoring_sha256

__all__ = ["current_inputs", "evaluator_sha256", "scoring_sha256"]
