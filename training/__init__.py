"""What makes and measures the models `vision/` ships: data-set loaders, renderers of training
scenes, training loops and validation.  Not installed; the table never imports it.
Needs torch to train (never at run time)."""
