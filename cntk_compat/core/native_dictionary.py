"""The order in which CNTK 2.7 lists the entries of one of its native Dictionaries (a Function's attributes).

CNTK keeps a Dictionary in a C++ hash map of wide-string keys (libstdc++'s unordered_map, 13 buckets for the few
entries an op has) and lists its entries in the map's own order: each key hashed with libstdc++'s 64-bit
_Hash_bytes over its UTF-32 code units, a key whose bucket is empty goes to the front of the list, one whose
bucket holds keys already goes in front of those. ``native_order`` gives that order from the order in which CNTK
inserts the keys."""

_MASK = (1 << 64) - 1
_MUL = 0xc6a4a7935bd1e995
_SEED = 0xc70f6907
_BUCKETS = 13


def _shift_mix(v):
    return v ^ (v >> 47)


def key_hash(key):
    """libstdc++'s std::hash of the std::wstring ``key`` (wchar_t being 4 bytes)."""
    data = key.encode("utf-32-le")
    n = len(data)
    h = (_SEED ^ (n * _MUL)) & _MASK
    whole = n & ~7
    for i in range(0, whole, 8):
        h ^= (_shift_mix((int.from_bytes(data[i:i + 8], "little") * _MUL) & _MASK) * _MUL) & _MASK
        h = (h * _MUL) & _MASK
    if n & 7:
        h ^= int.from_bytes(data[whole:], "little")
        h = (h * _MUL) & _MASK
    return _shift_mix((_shift_mix(h) * _MUL) & _MASK)


_BUCKET_OF = {}


def _bucket(key):
    b = _BUCKET_OF.get(key)
    if b is None:
        b = _BUCKET_OF[key] = key_hash(key) % _BUCKETS
    return b


def native_order(keys):
    """The keys, inserted in this order, in the order CNTK's Dictionary lists them."""
    listed = []
    for key in keys:
        b = _bucket(key)
        at = next((i for i, k in enumerate(listed) if _bucket(k) == b), 0)
        listed.insert(at, key)
    return listed
