"""PodTopologySpread (plugins/podtopologyspread): see plugin.py."""
from __future__ import annotations

from .plugin import (ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH, NAME,
                     PRE_FILTER_STATE_KEY, PRE_SCORE_STATE_KEY, PodTopologySpread, new)

__all__ = ["ERR_REASON_CONSTRAINTS_NOT_MATCH", "ERR_REASON_NODE_LABEL_NOT_MATCH", "NAME",
           "PRE_FILTER_STATE_KEY", "PRE_SCORE_STATE_KEY", "PodTopologySpread", "new"]
