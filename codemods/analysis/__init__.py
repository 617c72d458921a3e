"""Module-level facts the transforms share: qualified names, kernel bodies, precision literals."""
