"""Writing sequences in CNTK Text Format."""
import numpy as np


def _dense_to_str(data):
    return ' '.join(str(v) for v in np.asarray(data).ravel(order='C'))


def _sparse_to_str(data):
    return ' '.join('%s:%s' % (k, v) for k, v in sorted(data.items()))


def _is_tensor(data):
    """Whether ``data`` is a numpy array or a (nested) list of numbers."""
    if isinstance(data, np.ndarray):
        return True
    if not isinstance(data, list):
        return False
    while len(data) > 0:
        first = data[0]
        if isinstance(first, list):
            data = first
            continue
        if isinstance(first, np.ndarray):
            return False
        try:
            first + 0
            return True
        except TypeError:
            return False
    return True


def sequence_to_cntk_text_format(seq_idx, alias_tensor_map):
    """CTF text of sequence ``seq_idx``: alias_tensor_map maps input names to a tensor (one row per
    sequence element) or a list of {index: value} dicts (sparse)."""
    longest = max(len(t) for t in alias_tensor_map.values())
    lines = []
    for step in range(longest):
        fields = []
        for alias, tensor in sorted(alias_tensor_map.items()):
            if step >= len(tensor):
                continue
            if _is_tensor(tensor):
                text = _dense_to_str(np.asarray(tensor)[step])
            elif isinstance(tensor, list) and isinstance(tensor[0], dict):
                text = _sparse_to_str(tensor[step])
            else:
                raise ValueError('expected a tensor (dense) or list of dicts (sparse), but got "%s"' % type(tensor))
            fields.append('%s %s' % (alias, text))
        lines.append('%i\t|' % seq_idx + ' |'.join(fields))
    return '\n'.join(lines)
