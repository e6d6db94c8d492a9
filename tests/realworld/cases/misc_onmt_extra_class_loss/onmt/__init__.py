# Source: https://github.com/OpenNMT/OpenNMT-py/blob/908881444a814f7ab05c77c14316a2f05d135960/onmt/__init__.py
# Rebuilt in our own words: the package entry point, reduced to the subpackage the loss
# code reaches through `onmt.` (the repository's also imports its inputters, encoders,
# decoders, models and modules here).
import onmt.utils

__all__ = [onmt.utils]
