# Source: https://github.com/yuval-alaluf/SAM/blob/c1895aef275e702fba7560284dc16df60d65210e/models/__init__.py
# The repository's models package marker.
