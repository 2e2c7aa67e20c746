"""Arena agents: the scripted oracle, a no-network heuristic, and model-backed baselines."""
