"""CNTK's native Dictionary order (core.native_dictionary): libstdc++'s std::hash of a std::wstring (values from
libstdc++'s _Hash_bytes) and the order a 13-bucket unordered_map lists keys in."""
from cntk_compat.core.native_dictionary import key_hash, native_order


def test_key_hash_is_libstdcxx_hash_of_a_wide_string():
    assert key_hash('axis') == 0xb65ef33e3f6f7deb
    assert key_hash('poolingType') == 0xf5ae2cc99006ce04
    assert key_hash('maxTempMemSizeInSamples') == 0x78542af9328eee2d
    assert key_hash('') == 0x553e93901e462a6e


def test_keys_of_one_bucket_stay_together_the_latest_first():
    # as CNTK 2.7 lists a pooling's attributes, inserted in the order its constructor sets them
    inserted = ['poolingType', 'poolingWindowShape', 'strides', 'autoPadding', 'lowerPad', 'upperPad', 'ceilOutDim',
                'includePad']
    assert native_order(inserted) == ['includePad', 'upperPad', 'lowerPad', 'ceilOutDim', 'autoPadding', 'strides',
                                      'poolingWindowShape', 'poolingType']
    assert native_order(['axis', 'beginIndex', 'endIndex', 'sliceStrides']) == \
        ['sliceStrides', 'endIndex', 'beginIndex', 'axis']
