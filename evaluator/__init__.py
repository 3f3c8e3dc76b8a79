"""The evaluator: builds an untrusted submission in a sandbox, serves it on loopback, drives
Chromium in a loopback-only network namespace through 15 scored checks and 6 gates, and writes
`result.json` plus evidence. Contract: docs/acceptance-contract.md.
"""
