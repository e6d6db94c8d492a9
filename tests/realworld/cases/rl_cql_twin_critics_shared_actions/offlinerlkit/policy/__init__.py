# Source: https://github.com/yihaosun1124/OfflineRL-Kit/blob/e3ce69793766d02660217d4dfc0af4693a5531bd/offlinerlkit/policy/__init__.py
# Rebuilt in our own words: the policies package, reduced to the base class and SAC (the
# repository also lists BC, TD3, CQL, IQL, MCQ, TD3+BC, EDAC and four model-based ones).
from offlinerlkit.policy.base_policy import BasePolicy
from offlinerlkit.policy.model_free.sac import SACPolicy

__all__ = ["BasePolicy", "SACPolicy"]
