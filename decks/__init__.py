"""Example card decks (data files a user can replace), shipped as package data."""
