#!/bin/sh
# The stand-in kit's cuobjdump: the fake lab grader reads no machine code, but
# grade.py refuses a kit that names none (cli.usable).
exit 0
