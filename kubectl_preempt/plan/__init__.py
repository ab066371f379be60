"""`plan`: what creating or scaling workloads would do (run.py), and how many copies of a pod fit
(capacity.py); both through the replay's engine (replay/simulate.py)."""
