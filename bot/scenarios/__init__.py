"""The trace model, the ten signature generators, ground truth and the Kineto export."""
