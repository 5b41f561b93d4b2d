"""CNTK's ``ctf2bin`` converter script (CNTK Text Format to CNTK binary format), importable as ``ctf2bin``."""
from cntk_compat.io.ctf2bin import *  # noqa: F401,F403
