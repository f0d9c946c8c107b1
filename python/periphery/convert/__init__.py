"""Weight converters, exports, quantization and their verification (``periphery[convert]``).

* ``checkpoint``: PyTorch checkpoint → safetensors (``periphery-convert-checkpoint``);
* ``coreml``: the iOS app's two Core ML packages → safetensors (``periphery-convert-coreml``), with
  ``coreml_program``, a PyTorch interpreter of their MIL programs;
* ``export_coreml``, ``export_onnx``: the reference as Core ML packages or one ONNX model
  (``periphery-export-coreml``, ``periphery-export-onnx``);
* ``quantize_onnx``: static INT8 quantization of that ONNX model (``periphery-quantize-onnx``);
* ``verify_parity``: a converted file against its source through ``periphery forward``
  (``periphery-verify-parity``);
* ``verify_int8``: the Swift INT8 network against fake-quantized PyTorch references
  (``periphery-verify-int8``).
"""
