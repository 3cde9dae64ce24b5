"""Training of the pip-d6 nets (detector and classifier)."""
