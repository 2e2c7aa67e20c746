"""The live environment: what runs an episode in a browser against the apps (built on ``core``)."""
