"""Training and validation of the numbered-dice nets (detector, top face, classifier)."""
