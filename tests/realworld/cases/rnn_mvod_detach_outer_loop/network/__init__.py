# Source: https://github.com/vikrant7/mobile-vod-bottleneck-lstm/blob/dc3c0db9687cf25b74e013525dcf54c5d9be8fef/network/__init__.py
# The repository's network package marker.
