# Source: https://github.com/yihaosun1124/OfflineRL-Kit/blob/e3ce69793766d02660217d4dfc0af4693a5531bd/offlinerlkit/policy/model_free/__init__.py
# The repository's model-free policies package marker.
