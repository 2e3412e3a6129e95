"""The unit builder: a parsed document's blocks -> structure-aware evidence units."""

from structaware_readers.units.builder import UnitBuilder, build_units
from structaware_readers.units.options import UnitOptions

__all__ = ["UnitBuilder", "UnitOptions", "build_units"]
