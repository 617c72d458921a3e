"""The rules, one module each (or one module per table-driven family): adding a rule is adding
its module here, with its goldens. Each module defines `RULE` (or `RULES`, for a family);
codemods/registry.py finds them."""
