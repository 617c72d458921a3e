#!/bin/sh
# lowerall.sh PYTHON: every entry, each in its own process
for n in $(PYTHONPATH=. $1 -c "import entry; print(' '.join(entry.ENTRIES))" 2>/dev/null || python3 -c "import ast,sys"); do
  PYTHONPATH=. $1 lower.py $n 2>/dev/null || echo "$n	CRASH"
done
