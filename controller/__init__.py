"""dicetable controller package."""
