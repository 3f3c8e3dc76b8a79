"""Typed records shared by the harness, the evaluator and the publisher.

`records.layout` defines where every evidence file lives (once); `records.inputs` types the frozen
round inputs under `benchmark/`; `records.io` writes records atomically and reads them with errors
that name the file and the field.
"""
