"""The uids of the CNTK v2 model writer are CNTK 2.7's: what its files hold (the models in
shared/legacy_models and models CNTK 2.7 saves): a composite's uid is "CompositeFunction<n>" -- a block's body
the block's own composite's --, a composite whose root is a Combine names that Combine (with its name) as its
root, and an op CNTK builds as a block of primitives (Sequence::Slice) is a "Block<n>". CNTK 2.7 loads such a
file keeping the uids; so does our reader."""
import json
import os
import re
import subprocess

import numpy as np
import pytest

import cntk_compat as C
from cntk_compat.model_formats import cntkv2_writer as W

CNTK27 = os.environ.get("CNTK27_PYTHON", "/root/.cache/cntk27/bin/python-cntk27")
DATA = [np.arange(6, dtype=np.float32).reshape(3, 2) / 4]


def _model():
    x = C.sequence.input_variable(2, name="x")
    d = C.layers.Dense(3, activation=C.relu, init=C.glorot_uniform(seed=1))(x)
    return C.combine([C.sequence.last(d), C.sequence.first(d)], name="both"), d


def test_composites_combines_and_blocks_have_cntk27s_uids():
    model, d = _model()
    top = W.model_dictionary(model)
    assert re.fullmatch(r"CompositeFunction\d+", model.uid) and top["uid"] == model.uid
    root = model.root_function
    assert root.op_name == "Combine" and top["root"] == root.uid
    combine, = [r for r in top["primitive_functions"] if r["uid"] == top["root"]]
    assert combine["op"] == 44 and combine["name"] == "both"
    blocks = {r["block_function_op_name"]: r for r in top["primitive_functions"] if r["op"] == 57}
    dense = d.owner
    assert blocks["Dense"]["uid"] == dense.uid
    assert blocks["Dense"]["block_function_composite"]["uid"] == dense._block_root.uid
    slices = [r for r in top["primitive_functions"] if r.get("block_function_op_name") == "Sequence::Slice"]
    assert len(slices) == 2
    for r in slices:
        assert re.fullmatch(r"Block\d+", r["uid"])
        assert re.fullmatch(r"CompositeFunction\d+", r["block_function_composite"]["uid"])
    uids = [r["uid"] for r in top["primitive_functions"]] + [r["uid"] for r in top["inputs"]] + \
        [r["block_function_composite"]["uid"] for r in slices + [blocks["Dense"]]] + [top["uid"]]
    assert len(uids) == len(set(uids))


def test_our_reader_keeps_the_uids(tmp_path):
    model, _ = _model()
    model.save(str(tmp_path / "m.model"))
    loaded = C.load_model(str(tmp_path / "m.model"))
    assert (loaded.uid, loaded.root_function.uid, loaded.name) == (model.uid, model.root_function.uid, "both")
    for a, b in zip(model.eval({model.arguments[0]: DATA}).values(), loaded.eval({loaded.arguments[0]: DATA}).values()):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


_ORACLE = '''
import json, sys
import numpy as np
import cntk as C
z = C.load_model(sys.argv[1])
blocks = C.logging.graph.depth_first_search(z, lambda f: isinstance(f, C.Function) and f.is_block, depth=-1)
r = z.eval({z.arguments[0]: [np.arange(6, dtype=np.float32).reshape(3, 2) / 4]})
print(json.dumps({"uid": z.uid, "root": z.root_function.uid, "root_op": z.root_function.op_name, "name": z.name,
                  "blocks": sorted([b.uid, b.op_name] for b in blocks),
                  "values": [np.asarray(r[o]).tolist() for o in z.outputs]}))
'''


@pytest.mark.skipif(not os.path.exists(CNTK27), reason="real CNTK 2.7 (the oracle) is not installed")
def test_cntk27_loads_our_file_with_its_uids(tmp_path):
    model, d = _model()
    model.save(str(tmp_path / "m.model"))
    (tmp_path / "oracle.py").write_text(_ORACLE)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([CNTK27, "oracle.py", "m.model"], cwd=str(tmp_path), env=env, check=True,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=600).stdout
    theirs = json.loads(out.decode().strip().splitlines()[-1])
    assert (theirs["uid"], theirs["root"], theirs["root_op"], theirs["name"]) == \
        (model.uid, model.root_function.uid, "Combine", "both")
    top = W.model_dictionary(model)
    assert sorted(theirs["blocks"]) == sorted([r["uid"], r["block_function_op_name"]]
                                              for r in top["primitive_functions"] if r["op"] == 57)
    ours = model.eval({model.arguments[0]: DATA})
    for o, v in zip(model.outputs, theirs["values"]):
        np.testing.assert_allclose(np.asarray(ours[o]), np.asarray(v, np.float32), rtol=1e-6)
