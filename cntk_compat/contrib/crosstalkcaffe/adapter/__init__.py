"""Adapters from other toolkits' model files to the uniform model, by source name."""
from .bvlccaffe import caffeadapter

ADAPTER_DICT = {
    'Caffe': caffeadapter.CaffeAdapter()
}
