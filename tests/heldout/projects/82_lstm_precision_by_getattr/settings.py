# The precision's member name, as the experiment's flags spell it.
PRECISION_NAME = "DEFAULT"
