# Source: https://github.com/juliusfrost/dreamer-pytorch/blob/f973caff6efc843c8dc2f2fb0c07b061b1f8ef74/dreamer/models/__init__.py
# The repository's models package marker.
