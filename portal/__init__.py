"""The participant portal."""
