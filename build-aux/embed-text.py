#!/usr/bin/env python3
"""Turns a text file into a C string constant, so the runner stays one
self-contained binary while the text (the session driver) stays a file
that can be read, linted and tested as what it is.

Usage: embed-text.py SYMBOL INPUT OUTPUT
"""
import sys

symbol, source, output = sys.argv[1:4]
with open(source, encoding="utf-8") as f:
    text = f.read()
lines = [f"/* Generated from {source.rsplit('/', 1)[-1]} by build-aux/embed-text.py. */",
         f"const char {symbol}[] ="]
for line in text.splitlines(keepends=True):
    escaped = line.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    lines.append(f'  "{escaped}"')
lines[-1] += ";"
with open(output, "w", encoding="utf-8") as f:
    f.write("\n".join(lines) + "\n")
