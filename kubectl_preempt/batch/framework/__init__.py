"""kube-batch's framework: the session, its statements and the tiers' votes."""
