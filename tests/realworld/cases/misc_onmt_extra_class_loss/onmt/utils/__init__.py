# Source: https://github.com/OpenNMT/OpenNMT-py/blob/908881444a814f7ab05c77c14316a2f05d135960/onmt/utils/__init__.py
# Rebuilt in our own words: the utilities package, reduced to the statistics accumulator.
from onmt.utils.statistics import Statistics

__all__ = ["Statistics"]
