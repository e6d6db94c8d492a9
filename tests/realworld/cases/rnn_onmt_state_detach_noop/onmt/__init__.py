# Source: https://github.com/OpenNMT/OpenNMT-py/blob/a5b76e4439d7547d194faa405b49942274e72a50/onmt/__init__.py
# Rebuilt in our own words: the package entry point of that time, reduced to the
# subpackage the trainer uses (the repository's also imports its models, loss,
# trainer, translator, optimizer and beam search here).
import onmt.io

__all__ = [onmt.io]
