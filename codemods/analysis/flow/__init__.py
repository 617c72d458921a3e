"""The whole-program value flow, in its two stages: each module summarised as plain data
(`summary`, map), the summaries joined by a worklist fixpoint (`link` on its layers, reduce),
and what the rules read of it (`link_answers` -> `flow_facts`; `moved_sites` for an edit that only
moves code). `graph` is the one reachability walk it and the project index share."""
