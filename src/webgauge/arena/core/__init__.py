"""The arena runtime: actions, observations, tasks and their contracts, the env and the episode loop."""
