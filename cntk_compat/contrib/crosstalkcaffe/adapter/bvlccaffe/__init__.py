"""The adapter for BVLC Caffe models (network definition ``.prototxt`` + trained ``.caffemodel``)."""
