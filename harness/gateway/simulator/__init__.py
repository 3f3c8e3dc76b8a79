"""An OpenRouter-compatible simulator serving scripted models (see `script.py` for the format).

In process: `with Simulator.from_dir(path) as sim: sim.base_url`; as a program:
`python -m harness.gateway.simulator --port P --models-dir DIR`
(or `--cohort benchmark/demo-cohort.json`).
"""

from harness.gateway.simulator.script import ScriptedModel, load_script, load_scripts
from harness.gateway.simulator.server import Simulator

__all__ = ["ScriptedModel", "Simulator", "load_script", "load_scripts"]
