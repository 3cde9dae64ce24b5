"""The numpy renderer of numbered dice (d6, d10, d10p, d20) on boards and in windows."""
