"""dicetable display package."""
