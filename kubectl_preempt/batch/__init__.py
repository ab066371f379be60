"""kube-batch (kubernetes-sigs/kube-batch at 86b2ba21): its scheduling session, folder for folder:
api/, cache/, framework/, actions/, plugins/, util/. Uses model/ and plugins/; the kube-scheduler
core never imports it."""
