# Source: https://github.com/yuval-alaluf/restyle-encoder/blob/5e80276228cc5d9e0a39a16119210ee49ce2c975/models/__init__.py
# The repository's models package marker.
