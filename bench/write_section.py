"""Replaces (or appends) one benchmark's section of docs/benchmarks.md, between its markers."""
import re
import sys

path, name, section = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    text = open(path).read()
except FileNotFoundError:
    text = "# Benchmarks\n\nEach section is written by the script it names; rerun the script to refresh it.\n"
start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.S)
if pattern.search(text):
    text = pattern.sub(lambda _: section.strip(), text)
else:
    text = text.rstrip("\n") + "\n\n" + section.strip() + "\n"
open(path, "w").write(text)
