"""InterPodAffinity (plugins/interpodaffinity): see plugin.py."""
from __future__ import annotations

from .plugin import (ERR_REASON_AFFINITY_RULES_NOT_MATCH, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
                     ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH, NAME, PRE_FILTER_STATE_KEY,
                     PRE_SCORE_STATE_KEY, InterPodAffinity, new)

__all__ = ["ERR_REASON_AFFINITY_RULES_NOT_MATCH", "ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH",
           "ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH", "NAME", "PRE_FILTER_STATE_KEY",
           "PRE_SCORE_STATE_KEY", "InterPodAffinity", "new"]
