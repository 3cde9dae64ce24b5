"""Numbered dice (d10, percentile d10, d20) read together with pip d6 in one frame."""
