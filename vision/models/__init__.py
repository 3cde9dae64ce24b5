"""Trained ONNX models shipped with the package (see README.md here)."""
