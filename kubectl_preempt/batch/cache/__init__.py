"""kube-batch's scheduler cache."""
