"""VETR's host loop (the paper's Algorithm 2) and the scene baselines, as strategies.

actions: the generator's reply format and the vote; messages: modality, the bounded
window, summaries; judges: the tournament and the verifier; session: a task's scene
resources and counts; params: the strategies' declared params; host: the loop;
strategies: `vetr`, `viga`; baselines:
`scene_one_shot`, `blender_alchemy`; facts: SceneFacts, what the report reads.
"""

from tether.systems.scene.loop.facts import SceneFacts, scene_facts_of
from tether.systems.scene.loop.host import HostLoop
from tether.systems.scene.loop.params import HostParams

__all__ = ["HostLoop", "HostParams", "SceneFacts", "scene_facts_of"]
