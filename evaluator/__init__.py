"""The evaluator: builds an untrusted submission in a sandbox, serves it on loopback, drives
Chromium in a loopback-only network namespace through the scored checks (`evaluator.checks`) and
the gates (`evaluator.gates`), and writes
`result.json` plus evidence. Contract: the task's contract.md (benchmark/tasks/<task>/).
"""
