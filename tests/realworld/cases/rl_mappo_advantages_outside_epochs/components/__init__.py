# Source: https://github.com/hijkzzz/pymarl2/blob/8ccac7c5aa134422a2e3009be735d23cdf8ce2f8/src/components/__init__.py
# The repository's components package marker.
