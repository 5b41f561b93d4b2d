"""The part of BVLC Caffe's ``caffe.proto`` schema that the converter reads, built at import time with the
``protobuf`` runtime (no generated code, no ``protoc``).

The message and field names, numbers, types and defaults are Caffe's (package ``caffe``, proto2), so binary
``.caffemodel`` files and text ``.prototxt`` files written by Caffe parse with these classes. Only the messages the
converter looks at are described: a file may hold other fields (data-layer settings, loss settings, ...); binary
parsing keeps them as unknown fields and :func:`parse_text` skips them.

The classes carry the generated module's names (``NetParameter``, ``LayerParameter``, ``BlobProto``, ...); they live
in a private descriptor pool, so they coexist with a real ``caffe.proto.caffe_pb2`` in the same process.
"""
from google.protobuf import descriptor_pb2, descriptor_pool, text_format

try:  # protobuf >= 4.22
    from google.protobuf.message_factory import GetMessageClass as _message_class
except ImportError:  # pragma: no cover - older runtimes
    from google.protobuf import message_factory as _mf
    _FACTORY = _mf.MessageFactory()

    def _message_class(descriptor):
        return _FACTORY.GetPrototype(descriptor)

_FDP = descriptor_pb2.FieldDescriptorProto
_SCALARS = {
    "float": _FDP.TYPE_FLOAT, "double": _FDP.TYPE_DOUBLE, "int32": _FDP.TYPE_INT32, "int64": _FDP.TYPE_INT64,
    "uint32": _FDP.TYPE_UINT32, "bool": _FDP.TYPE_BOOL, "string": _FDP.TYPE_STRING,
}
_LABELS = {"optional": _FDP.LABEL_OPTIONAL, "repeated": _FDP.LABEL_REPEATED, "required": _FDP.LABEL_REQUIRED}

# Enums: (scope, name) -> [(value name, number), ...]; scope None is the file level.
_ENUMS = {
    (None, "Phase"): [("TRAIN", 0), ("TEST", 1)],
    ("ParamSpec", "DimCheckMode"): [("STRICT", 0), ("PERMISSIVE", 1)],
    ("FillerParameter", "VarianceNorm"): [("FAN_IN", 0), ("FAN_OUT", 1), ("AVERAGE", 2)],
    ("ConvolutionParameter", "Engine"): [("DEFAULT", 0), ("CAFFE", 1), ("CUDNN", 2)],
    ("PoolingParameter", "PoolMethod"): [("MAX", 0), ("AVE", 1), ("STOCHASTIC", 2)],
    ("PoolingParameter", "Engine"): [("DEFAULT", 0), ("CAFFE", 1), ("CUDNN", 2)],
    ("EltwiseParameter", "EltwiseOp"): [("PROD", 0), ("SUM", 1), ("MAX", 2)],
    ("SoftmaxParameter", "Engine"): [("DEFAULT", 0), ("CAFFE", 1), ("CUDNN", 2)],
    ("LRNParameter", "NormRegion"): [("ACROSS_CHANNELS", 0), ("WITHIN_CHANNEL", 1)],
    ("LRNParameter", "Engine"): [("DEFAULT", 0), ("CAFFE", 1), ("CUDNN", 2)],
    ("ReLUParameter", "Engine"): [("DEFAULT", 0), ("CAFFE", 1), ("CUDNN", 2)],
    ("V1LayerParameter", "LayerType"): [
        ("NONE", 0), ("ABSVAL", 35), ("ACCURACY", 1), ("ARGMAX", 30), ("BNLL", 2), ("CONCAT", 3),
        ("CONTRASTIVE_LOSS", 37), ("CONVOLUTION", 4), ("DATA", 5), ("DECONVOLUTION", 39), ("DROPOUT", 6),
        ("DUMMY_DATA", 32), ("EUCLIDEAN_LOSS", 7), ("ELTWISE", 25), ("EXP", 38), ("FLATTEN", 8), ("HDF5_DATA", 9),
        ("HDF5_OUTPUT", 10), ("HINGE_LOSS", 28), ("IM2COL", 11), ("IMAGE_DATA", 12), ("INFOGAIN_LOSS", 13),
        ("INNER_PRODUCT", 14), ("LRN", 15), ("MEMORY_DATA", 29), ("MULTINOMIAL_LOGISTIC_LOSS", 16), ("MVN", 34),
        ("POOLING", 17), ("POWER", 26), ("RELU", 18), ("SIGMOID", 19), ("SIGMOID_CROSS_ENTROPY_LOSS", 27),
        ("SILENCE", 36), ("SOFTMAX", 20), ("SOFTMAX_LOSS", 21), ("SPLIT", 22), ("SLICE", 33), ("TANH", 23),
        ("WINDOW_DATA", 24), ("THRESHOLD", 31)],
}

# Messages: name -> [(number, label, type, field name, default or None, packed)], written as compact strings
# "number label type name [=default] [packed]". A type naming another message or an enum is resolved below.
_PARAM_FIELDS_V2 = """
100 transform_param TransformationParameter; 101 loss_param LossParameter; 102 accuracy_param AccuracyParameter;
139 batch_norm_param BatchNormParameter; 141 bias_param BiasParameter; 104 concat_param ConcatParameter;
106 convolution_param ConvolutionParameter; 108 dropout_param DropoutParameter;
110 eltwise_param EltwiseParameter; 135 flatten_param FlattenParameter;
117 inner_product_param InnerProductParameter; 143 input_param InputParameter; 118 lrn_param LRNParameter;
121 pooling_param PoolingParameter; 10001 psroi_pooling_param PSROIPoolingParameter;
123 relu_param ReLUParameter; 133 reshape_param ReshapeParameter;
8266711 roi_pooling_param ROIPoolingParameter; 142 scale_param ScaleParameter; 125 softmax_param SoftmaxParameter
"""
_PARAM_FIELDS_V1 = """
27 accuracy_param AccuracyParameter; 9 concat_param ConcatParameter; 10 convolution_param ConvolutionParameter;
12 dropout_param DropoutParameter; 24 eltwise_param EltwiseParameter; 17 inner_product_param InnerProductParameter;
18 lrn_param LRNParameter; 19 pooling_param PoolingParameter; 30 relu_param ReLUParameter;
39 softmax_param SoftmaxParameter; 36 transform_param TransformationParameter; 42 loss_param LossParameter
"""

_MESSAGES = {
    "BlobShape": ["1 repeated int64 dim packed"],
    "BlobProto": ["7 optional BlobShape shape", "5 repeated float data packed", "6 repeated float diff packed",
                  "8 repeated double double_data packed", "9 repeated double double_diff packed",
                  "1 optional int32 num =0", "2 optional int32 channels =0", "3 optional int32 height =0",
                  "4 optional int32 width =0"],
    "NetState": ["1 optional Phase phase =TEST", "2 optional int32 level =0", "3 repeated string stage"],
    "NetStateRule": ["1 optional Phase phase", "2 optional int32 min_level", "3 optional int32 max_level",
                     "4 repeated string stage", "5 repeated string not_stage"],
    "ParamSpec": ["1 optional string name", "2 optional DimCheckMode share_mode", "3 optional float lr_mult =1",
                  "4 optional float decay_mult =1"],
    "FillerParameter": ["1 optional string type =constant", "2 optional float value =0", "3 optional float min =0",
                        "4 optional float max =1", "5 optional float mean =0", "6 optional float std =1",
                        "7 optional int32 sparse =-1", "8 optional VarianceNorm variance_norm =FAN_IN"],
    "TransformationParameter": ["1 optional float scale =1", "2 optional bool mirror =false",
                                "3 optional uint32 crop_size =0", "4 optional string mean_file",
                                "5 repeated float mean_value", "6 optional bool force_color =false",
                                "7 optional bool force_gray =false"],
    "LossParameter": ["1 optional int32 ignore_label", "2 optional bool normalize"],
    "AccuracyParameter": ["1 optional uint32 top_k =1", "2 optional int32 axis =1", "3 optional int32 ignore_label"],
    "InputParameter": ["1 repeated BlobShape shape"],
    "ConvolutionParameter": [
        "1 optional uint32 num_output", "2 optional bool bias_term =true", "3 repeated uint32 pad",
        "4 repeated uint32 kernel_size", "6 repeated uint32 stride", "18 repeated uint32 dilation",
        "9 optional uint32 pad_h =0", "10 optional uint32 pad_w =0", "11 optional uint32 kernel_h",
        "12 optional uint32 kernel_w", "13 optional uint32 stride_h", "14 optional uint32 stride_w",
        "5 optional uint32 group =1", "7 optional FillerParameter weight_filler",
        "8 optional FillerParameter bias_filler", "15 optional Engine engine =DEFAULT", "16 optional int32 axis =1",
        "17 optional bool force_nd_im2col =false"],
    "PoolingParameter": [
        "1 optional PoolMethod pool =MAX", "4 optional uint32 pad =0", "9 optional uint32 pad_h =0",
        "10 optional uint32 pad_w =0", "2 optional uint32 kernel_size", "5 optional uint32 kernel_h",
        "6 optional uint32 kernel_w", "3 optional uint32 stride =1", "7 optional uint32 stride_h",
        "8 optional uint32 stride_w", "11 optional Engine engine =DEFAULT", "12 optional bool global_pooling =false"],
    "BatchNormParameter": ["1 optional bool use_global_stats", "2 optional float moving_average_fraction =0.999",
                           "3 optional float eps =1e-05"],
    "ScaleParameter": ["1 optional int32 axis =1", "2 optional int32 num_axes =1",
                       "3 optional FillerParameter filler", "4 optional bool bias_term =false",
                       "5 optional FillerParameter bias_filler"],
    "BiasParameter": ["1 optional int32 axis =1", "2 optional int32 num_axes =1",
                      "3 optional FillerParameter filler"],
    "InnerProductParameter": ["1 optional uint32 num_output", "2 optional bool bias_term =true",
                              "3 optional FillerParameter weight_filler", "4 optional FillerParameter bias_filler",
                              "5 optional int32 axis =1", "6 optional bool transpose =false"],
    "EltwiseParameter": ["1 optional EltwiseOp operation =SUM", "2 repeated float coeff",
                         "3 optional bool stable_prod_grad =true"],
    "ConcatParameter": ["2 optional int32 axis =1", "1 optional uint32 concat_dim =1"],
    "SoftmaxParameter": ["1 optional Engine engine =DEFAULT", "2 optional int32 axis =1"],
    "LRNParameter": ["1 optional uint32 local_size =5", "2 optional float alpha =1", "3 optional float beta =0.75",
                     "4 optional NormRegion norm_region =ACROSS_CHANNELS", "5 optional float k =1",
                     "6 optional Engine engine =DEFAULT"],
    "DropoutParameter": ["1 optional float dropout_ratio =0.5", "2 optional bool scale_train =true"],
    "ReLUParameter": ["1 optional float negative_slope =0", "2 optional Engine engine =DEFAULT"],
    "FlattenParameter": ["1 optional int32 axis =1", "2 optional int32 end_axis =-1"],
    "ReshapeParameter": ["1 optional BlobShape shape", "2 optional int32 axis =0", "3 optional int32 num_axes =-1"],
    "PSROIPoolingParameter": ["1 required float spatial_scale", "2 required int32 output_dim",
                              "3 required int32 group_size"],
    "ROIPoolingParameter": ["1 optional uint32 pooled_h =0", "2 optional uint32 pooled_w =0",
                            "3 optional float spatial_scale =1"],
    "LayerParameter": [
        "1 optional string name", "2 optional string type", "3 repeated string bottom", "4 repeated string top",
        "10 optional Phase phase", "5 repeated float loss_weight", "6 repeated ParamSpec param",
        "7 repeated BlobProto blobs", "11 repeated bool propagate_down", "8 repeated NetStateRule include",
        "9 repeated NetStateRule exclude"] + [
        "%s optional %s %s" % (entry.split()[0], entry.split()[2], entry.split()[1])
        for entry in _PARAM_FIELDS_V2.replace("\n", " ").split(";")],
    "V1LayerParameter": [
        "2 repeated string bottom", "3 repeated string top", "4 optional string name",
        "32 repeated NetStateRule include", "33 repeated NetStateRule exclude", "5 optional LayerType type",
        "6 repeated BlobProto blobs", "1001 repeated string param", "7 repeated float blobs_lr",
        "8 repeated float weight_decay", "35 repeated float loss_weight"] + [
        "%s optional %s %s" % (entry.split()[0], entry.split()[2], entry.split()[1])
        for entry in _PARAM_FIELDS_V1.replace("\n", " ").split(";")],
    "NetParameter": ["1 optional string name", "3 repeated string input", "8 repeated BlobShape input_shape",
                     "4 repeated int32 input_dim", "5 optional bool force_backward =false",
                     "6 optional NetState state", "7 optional bool debug_info =false",
                     "100 repeated LayerParameter layer", "2 repeated V1LayerParameter layers"],
    "SolverParameter": ["24 optional string net", "3 repeated int32 test_iter", "4 optional int32 test_interval =0",
                        "5 optional float base_lr", "6 optional int32 display", "7 optional int32 max_iter",
                        "8 optional string lr_policy", "9 optional float gamma", "10 optional float power",
                        "11 optional float momentum", "12 optional float weight_decay", "13 optional int32 stepsize",
                        "14 optional int32 snapshot =0", "15 optional string snapshot_prefix",
                        "40 optional string type =SGD"],
}


def _build_file():
    proto = descriptor_pb2.FileDescriptorProto(name="crosstalkcaffe/caffe_subset.proto", package="caffe",
                                               syntax="proto2")
    scoped_enums = {}
    for (scope, enum_name), values in _ENUMS.items():
        if scope is None:
            enum = proto.enum_type.add(name=enum_name)
            scoped_enums.setdefault(None, {})[enum_name] = ".caffe." + enum_name
        else:
            continue
        for value_name, number in values:
            enum.value.add(name=value_name, number=number)
    for message_name, fields in _MESSAGES.items():
        message = proto.message_type.add(name=message_name)
        local = {}
        for (scope, enum_name), values in _ENUMS.items():
            if scope == message_name:
                enum = message.enum_type.add(name=enum_name)
                for value_name, number in values:
                    enum.value.add(name=value_name, number=number)
                local[enum_name] = ".caffe.%s.%s" % (message_name, enum_name)
        for spec in fields:
            words = spec.split()
            field = message.field.add(number=int(words[0]), label=_LABELS[words[1]], name=words[3])
            kind = words[2]
            if kind in _SCALARS:
                field.type = _SCALARS[kind]
            elif kind in local or kind in scoped_enums[None]:
                field.type = _FDP.TYPE_ENUM
                field.type_name = local.get(kind) or scoped_enums[None][kind]
            elif kind in _MESSAGES:
                field.type = _FDP.TYPE_MESSAGE
                field.type_name = ".caffe." + kind
            else:
                raise KeyError("caffe schema: unknown type %r of %s.%s" % (kind, message_name, words[3]))
            for extra in words[4:]:
                if extra == "packed":
                    field.options.packed = True
                elif extra.startswith("="):
                    field.default_value = extra[1:]
    return proto


_POOL = descriptor_pool.DescriptorPool()
DESCRIPTOR = _POOL.Add(_build_file())

for _name in _MESSAGES:
    globals()[_name] = _message_class(DESCRIPTOR.message_types_by_name[_name])
del _name
TRAIN = 0
TEST = 1


def parse_text(text, message):
    """Merge a text-format (``.prototxt``) document into ``message``; fields this subset does not describe are
    skipped, so full Caffe network definitions parse."""
    return text_format.Merge(text, message, allow_unknown_field=True)


def parse_binary(data, message):
    """Merge a binary (``.caffemodel``) document into ``message``; undescribed fields stay unknown fields."""
    message.MergeFromString(data)
    return message
