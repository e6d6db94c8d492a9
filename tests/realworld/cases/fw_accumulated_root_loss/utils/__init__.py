# Source: https://github.com/microsoft/voxelpose-pytorch/blob/9ef5d407a597c9647b2c8f6c0a246b725a87a054/lib/utils/__init__.py
# The repository's utils package marker.
