"""cntk.debugging and cntk.misc resolve as CNTK's packages, with CNTK's names."""
import importlib

import cntk


def test_cntk_debugging_and_misc_are_the_packages():
    assert importlib.import_module("cntk.debugging") is cntk.debugging
    assert cntk.misc.__name__ == "cntk_compat.misc"  # not ops' misc module
    for name in ("debug_model", "dump_function", "dump_signature", "force_deterministic", "set_checked_mode",
                 "set_computation_network_trace_level", "set_node_timing", "start_profiler", "stop_profiler",
                 "enable_profiler", "disable_profiler", "save_as_legacy_model", "DEBUG_USAGE", "UserFunction",
                 "user_function", "output_variable", "CloneMethod"):
        assert hasattr(cntk.debugging, name), name
    assert cntk.debugging.UserFunction is cntk.ops.functions.UserFunction
    from cntk.misc.optimized_rnnstack_converter import convert, convert_optimized_rnnstack  # noqa: F401
    assert convert is cntk.misc.convert
