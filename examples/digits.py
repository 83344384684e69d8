"""Train a CNN and an MLP on scikit-learn's digits with tapegrad: python examples/digits.py --help

The code lives in tapegrad.examples.digits, so `python -m tapegrad.examples.digits` does the same.
"""
from tapegrad.examples.digits import main

if __name__ == "__main__":
    main()
