"""dicetable vision package."""
