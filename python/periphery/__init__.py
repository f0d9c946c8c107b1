"""Periphery: monocular bird's-eye-view vehicle detection from one windshield camera."""
