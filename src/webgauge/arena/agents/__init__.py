"""Arena agents: the scripted oracle, a no-network heuristic, the refuser and model-backed baselines."""

from ..core.agent import Agent, AgentStep
from .heuristic import HeuristicAgent
from .model import SYSTEM_PROMPT, ModelAgent
from .oracle import OracleAgent, solve_with_oracle
from .refuser import RefusingAgent

__all__ = ["Agent", "AgentStep", "HeuristicAgent", "ModelAgent", "SYSTEM_PROMPT", "OracleAgent", "RefusingAgent",
           "solve_with_oracle"]
