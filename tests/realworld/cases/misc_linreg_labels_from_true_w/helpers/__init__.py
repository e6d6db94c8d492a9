# Source: https://github.com/zhangyu2234/Deep-learning-by-hand/blob/ebf4aaffc326135b55cb7d8f1db02e40362bc8c3/utils/__init__.py
# The repository's package marker (empty there too).
