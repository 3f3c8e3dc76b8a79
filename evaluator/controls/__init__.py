"""Evaluator controls: the task starter and the reference solution, materialised on demand."""
