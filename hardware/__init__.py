"""dicetable hardware package."""
