# Source: https://github.com/hijkzzz/pymarl2/blob/8ccac7c5aa134422a2e3009be735d23cdf8ce2f8/src/controllers/__init__.py
# The controllers package (the repository's also holds a registry of its controllers).
