"""Learning the evaluation by self-play (docs/TRAINING.md): self-play data, the feature encoder's
training-side helpers, the PyTorch model and its export to the compiled network, gating."""
