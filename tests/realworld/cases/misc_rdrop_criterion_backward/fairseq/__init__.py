# Source: https://github.com/dropreg/R-Drop/blob/9dcc8302eb9b0f112c38230864bbee807bbe1aa7/fairseq_src/fairseq/__init__.py
# The vendored fairseq package (the repository installs fairseq_src/ with pip -e);
# its entry point's imports are not needed by the parts rebuilt here.
