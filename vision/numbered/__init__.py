"""Numbered dice (d10, percentile d10, d20) read together with pip d6 in one frame.

`read_numbered(image)`: this package's reader alone (all four kinds).
`read_all(image)`: merged with the pip-d6 reader (which stays the authority on d6).
`NumberedDice(kinds, learnt)`: either, as a `vision.reading.Reader` (the table's).
"""

from vision.numbered.combined import NumberedDice, merge, read_all
from vision.numbered.reader import NumberedReader, read_numbered

__all__ = ["NumberedDice", "NumberedReader", "merge", "read_all", "read_numbered"]
