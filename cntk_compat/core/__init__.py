"""The symbolic CNTK graph and its lowering to PyTorch."""
