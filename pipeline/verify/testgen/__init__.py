"""Test generation for Verify: inputs, adversaries and the oracle."""
