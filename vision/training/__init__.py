"""Training code for the vision models (needs torch; never imported at run time)."""
