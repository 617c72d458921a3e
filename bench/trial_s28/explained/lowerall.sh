#!/bin/sh
# lowerall.sh PYTHON [--hash]: every entry, each in its own process
for n in $(PYTHONPATH=. $1 -c "import entry; print(' '.join(entry.ENTRIES))"); do
  PYTHONPATH=. $1 lower.py $n $2 2>/dev/null || echo "$n	CRASH"
done
