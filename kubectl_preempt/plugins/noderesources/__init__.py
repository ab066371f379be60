"""NodeResourcesFit and NodeResourcesBalancedAllocation (upstream's plugins/noderesources)."""
