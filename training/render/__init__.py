"""Renderers of training scenes, each seeded; the fixture generators in tools/ use them too."""
