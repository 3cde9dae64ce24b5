"""Example board layouts (data files a user can replace), shipped as package data."""
