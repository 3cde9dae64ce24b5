"""``python -m controller`` runs the ``dicetable`` command line."""

from controller.cli import main

main()
