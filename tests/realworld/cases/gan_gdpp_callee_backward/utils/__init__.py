# Source: https://github.com/facebookresearch/pytorch_GAN_zoo/blob/b75dee40918caabb4fe7ec561522717bf096a8cb/models/utils/__init__.py
# The repository's models/utils package marker.
