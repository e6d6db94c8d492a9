# Source: https://github.com/naver-ai/StyleMapGAN/blob/3a70e07fbe97a9a9128a94c1e48661f8375d445d/training/__init__.py
# The repository's training package marker.
