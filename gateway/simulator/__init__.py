"""An OpenRouter-compatible simulator of scripted models (format: records/simulator_scripts.py).

In process: `with Simulator.from_dir(path) as sim: sim.base_url`; as a program:
`python -m gateway.simulator --port P --models-dir DIR`
(or `--cohort benchmark/demo-cohort.json`).
"""

from gateway.simulator.server import Simulator
from records.simulator_scripts import ScriptedModel, load_script, load_scripts

__all__ = ["ScriptedModel", "Simulator", "load_script", "load_scripts"]
