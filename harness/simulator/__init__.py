"""An OpenRouter-compatible simulator serving scripted models (see `script.py` for the format).

In process: `with Simulator.from_dir(path) as sim: sim.base_url`; as a program:
`python -m harness.simulator --port P --models-dir DIR` (or `--cohort benchmark/demo-cohort.json`).
"""

from harness.simulator.script import ScriptedModel, load_script, load_scripts
from harness.simulator.server import Simulator

__all__ = ["ScriptedModel", "Simulator", "load_script", "load_scripts"]
