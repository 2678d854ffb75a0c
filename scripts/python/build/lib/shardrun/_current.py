"""The worker-mode task being handled now, so params() needs no argument in either mode."""
task = None
