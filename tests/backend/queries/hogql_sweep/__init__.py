"""Every operator and function of the HogQL subset over property operands, on every engine: none may fail with
anything but a 400. One file per family of expressions, so that the families run side by side."""
