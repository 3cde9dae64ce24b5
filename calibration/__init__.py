"""dicetable calibration package."""
