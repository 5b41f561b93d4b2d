"""CI sets REQUIRE_NATIVE=1 (.ci/run): there the C tokenizer of the CTF reader must have been built, so that its
tests in test_ctf_native.py run instead of being skipped."""
import os

from cntk_compat.io import _ctf_parse


def test_the_native_ctf_tokenizer_was_built_where_required():
    if os.environ.get("REQUIRE_NATIVE") == "1":
        assert _ctf_parse._ctf_native is not None, \
            "REQUIRE_NATIVE=1, but cntk_compat/io/_ctf_native did not build (is a C compiler installed?)"
