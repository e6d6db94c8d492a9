# Source: https://github.com/OpenNMT/OpenNMT-py/blob/a5b76e4439d7547d194faa405b49942274e72a50/onmt/io/__init__.py
# Rebuilt in our own words: the io package re-exports the batch helpers of IO.py.
from onmt.io.IO import make_features

__all__ = [make_features]
