"""Where models meet mathematics: protocols, tasks, training and the ``ccx`` CLI."""
