"""kube-batch's api package: tasks, jobs, nodes, queues and resources."""
