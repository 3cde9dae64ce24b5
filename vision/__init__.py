"""dicetable vision: pixels to dice. Pure functions of BGR uint8 numpy arrays."""

from vision.palette import Palette
from vision.reader import DiceReader, read_dice, read_die_crop
from vision.reading import DieReading

__all__ = ["DiceReader", "DieReading", "Palette", "read_dice", "read_die_crop"]
