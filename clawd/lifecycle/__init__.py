"""The service's life around daemon.py, which decides when (its signals): telling systemd
(notify.py), taking a new configuration (reload.py), and stopping in order (shutdown.py)."""
