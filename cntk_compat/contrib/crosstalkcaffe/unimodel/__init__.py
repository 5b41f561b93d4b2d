"""The toolkit-neutral ("uniform") description of a converted network and its instantiation as CNTK functions."""
