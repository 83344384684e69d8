"""Runnable tapegrad examples: `python -m tapegrad.examples.digits` trains a digit classifier."""
