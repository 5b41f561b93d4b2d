"""cntk.contrib.crosstalkcaffe: converting Caffe models (network ``.prototxt`` + weights ``.caffemodel``) into CNTK
models, as CNTK 2.7's converter of that name does. Entry point: ``CaffeConverter.from_model(conf_path)`` with a JSON
configuration (:mod:`.utils.globalconf`). Caffe itself is not needed: the files are parsed with the converter's own
description of Caffe's protobuf schema (:mod:`.adapter.bvlccaffe.caffe_pb2`)."""
from .convert import CaffeConverter  # noqa: F401
