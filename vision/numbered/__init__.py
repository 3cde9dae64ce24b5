"""Numbered dice (d10, percentile d10, d20) read together with pip d6 in one frame.

`read_numbered(image)`: this package's reader alone (all four kinds).
`read_all(image)`: merged with the pip-d6 reader (which stays the authority on d6).
"""

from vision.numbered.combined import merge, read_all
from vision.numbered.reader import NumberedReader, read_numbered

__all__ = ["NumberedReader", "merge", "read_all", "read_numbered"]
