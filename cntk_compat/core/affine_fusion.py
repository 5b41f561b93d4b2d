"""``times(x, W) + b`` as one ``addmm`` (what torch.nn.Linear runs): one op and one autograd node instead of a
product, a broadcast sum and the bias gradient's separate reduction. Dense layers are this pair; on small
minibatches the ops around the product are a large part of a step.

The pair is recognized from registry data (OpDef.algebra): a sum ("add") of a vector-by-matrix product
("matmul", output_rank 1, a dense left operand, a 2-D right operand without dynamic axes) and a vector of the
product's output size without dynamic axes, of the same dtype, whose result has the product's shape (no other
broadcast). The product must be read by nothing else, which only the finished graph tells: the lowering marks
candidates while it emits (``mark``) and rewrites them at the end (``fuse``). Steps of recurrent loops are not
rewritten (their input projections are hoisted out of the step instead).
"""
import torch


def affine(x, w, b):
    """x·w + b over x's last axis."""
    if torch.compiler.is_compiling():
        # traced (torch.export, ONNX, torch.compile): the two ops, so that exported graphs keep the parameters'
        # names and compilers fuse what they prefer
        return torch.matmul(x, w) + b
    if x.dim() == 2:
        return torch.addmm(b, x, w)
    return torch.addmm(b, x.reshape(-1, x.shape[-1]), w).reshape(tuple(x.shape[:-1]) + (w.shape[1],))


def _is_dense_product(v):
    if not v.is_output:
        return False
    node = v.owner
    if node._op.algebra != "matmul" or node._block_root is not None or \
            node._attributes.get("output_rank") != 1:
        return False
    x, w = node._inputs
    return not x._is_sparse and not w._n_dynamic and w._shape is not None and len(w._shape) == 2 and \
        x._shape is not None and len(x._shape) >= 1


def mark(fx_node, node, env):
    """Records on fx_node (computing CNTK node ``node``) the product and bias it may be rewritten from."""
    if node._op.algebra != "add" or len(node._inputs) != 2:
        return
    out = node._outputs[0]
    for product, bias in (node._inputs, node._inputs[::-1]):
        if not _is_dense_product(product) or bias._n_dynamic or bias._shape is None:
            continue
        w = product.owner._inputs[1]
        if tuple(bias._shape) == (w._shape[1],) and bias._dtype == product._dtype == out._dtype and \
                tuple(out._shape) == tuple(product._shape) and out._n_dynamic == product._n_dynamic:
            fx_node.meta["cntk_affine"] = (env[product.uid], product.owner.uid)
            return


def fuse(graph):
    """Rewrites each marked sum whose product nothing else reads as one call of ``affine``."""
    changed = False
    for n in list(graph.nodes):
        found = n.meta.get("cntk_affine")
        if found is None:
            continue
        product, product_uid = found
        if len(product.users) != 1:
            continue
        # the operands as the graph now has them (an operand may itself have been rewritten)
        x, w = product.args[:2]
        b = n.args[1] if n.args[0] is product else n.args[0]
        with graph.inserting_before(n):
            fused = graph.call_function(affine, (x, w, b))
        fused.meta["cntk_uid"] = product_uid  # node timing reports the product, the sum's cost is in it
        n.replace_all_uses_with(fused)
        graph.erase_node(n)
        graph.erase_node(product)
        changed = True
    return changed
