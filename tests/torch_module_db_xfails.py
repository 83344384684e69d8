"""ModuleInfos of torch's module database that tapegrad does not pass, and why
(`python tests/torch_module_db.py --write-xfails` writes it from a run: each entry
is the first failure reported)."""
XFAILS = {
    'AdaptiveAvgPool3d': "missing: tapegrad.nn.AdaptiveAvgPool3d is missing [input 0 'single']",
    'AdaptiveMaxPool3d': "missing: tapegrad.nn.AdaptiveMaxPool3d is missing [input 0 'single']",
    'AvgPool3d': "missing: tapegrad.nn.AvgPool3d is missing [input 0 'no_batch_dim']",
    'BatchNorm3d': "missing: tapegrad.nn.BatchNorm3d is missing [input 0 '']",
    'CTCLoss': "missing: tapegrad.nn.CTCLoss is missing [input 0 '_lengths_intlists']",
    'Conv3d': "missing: tapegrad.nn.Conv3d is missing [input 0 '']",
    'ConvTranspose3d': "missing: tapegrad.nn.ConvTranspose3d is missing [input 0 '']",
    'FractionalMaxPool2d': "missing: tapegrad.nn.FractionalMaxPool2d is missing [input 0 'ratio']",
    'FractionalMaxPool3d': "missing: tapegrad.nn.FractionalMaxPool3d is missing [input 0 'ratio']",
    'InstanceNorm3d': "missing: tapegrad.nn.InstanceNorm3d is missing [input 0 '']",
    'LPPool3d': "missing: tapegrad.nn.LPPool3d is missing [input 0 '']",
    'LazyConv1d': "missing: tapegrad.nn.LazyConv1d is missing [input 0 '']",
    'LazyConv2d': "missing: tapegrad.nn.LazyConv2d is missing [input 0 '']",
    'LazyConv3d': "missing: tapegrad.nn.LazyConv3d is missing [input 0 '']",
    'LazyConvTranspose1d': "missing: tapegrad.nn.LazyConvTranspose1d is missing [input 0 '']",
    'LazyConvTranspose2d': "missing: tapegrad.nn.LazyConvTranspose2d is missing [input 0 '']",
    'LazyConvTranspose3d': "missing: tapegrad.nn.LazyConvTranspose3d is missing [input 0 '']",
    'LinearCrossEntropyLoss': "missing: tapegrad.nn.LinearCrossEntropyLoss is missing [input 0 '']",
    'MaxPool3d': "missing: tapegrad.nn.MaxPool3d is missing [input 0 '']",
    'RMSNorm': "missing: tapegrad.nn.RMSNorm is missing [input 0 '1d_elementwise_affine']",
    'ReflectionPad3d': "missing: tapegrad.nn.ReflectionPad3d is missing [input 0 '']",
    'ReplicationPad3d': "missing: tapegrad.nn.ReplicationPad3d is missing [input 0 '']",
    'Transformer': "missing: tapegrad.nn.Transformer is missing [input 0 'no_batch_dim_batch_first_True']",
    'TransformerDecoderLayer': "missing: tapegrad.nn.TransformerDecoderLayer is missing [input 0 'relu_activation']",
}
