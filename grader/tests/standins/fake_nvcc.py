#!/usr/bin/env python3
"""A stand-in for nvcc in the grader's host tests: the "library" it writes is
the source itself, which the stand-in grader reads for what to do. Markers in
the source: FAKE_COMPILE_ERROR, FAKE_COMPILE_HANG, FAKE_INCLUDES_REFERENCE, FAKE_NO_KEEP (no
intermediate files kept: a grader error).
With -keep it keeps a "fatbin" (the source) and a preprocessed file: a header's
lines, then the source's with each CAT(a, b) pasted into ab, as a macro
`#define CAT(a, b) a##b` would."""
import os
import re
import sys
import time


def escaped(path):
    """A path as nvcc (gcc) writes a dependency: spaces and '#' escaped, '$' doubled."""
    return path.replace("$", "$$").replace("#", "\\#").replace(" ", "\\ ")


args = sys.argv[1:]
output = args[args.index("-o") + 1]
deps = args[args.index("-MF") + 1]
source = next(a for a in args if a.endswith(".cu"))
text = open(source, encoding="latin-1").read()  # bytes as nvcc takes them: any in comments
if "FAKE_COMPILE_ERROR" in text:
    print(f"{source}(3): error: identifier \"FAKE_COMPILE_ERROR\" is undefined")
    sys.exit(1)
if "FAKE_COMPILE_HANG" in text:
    time.sleep(60)
read = [source, "/usr/include/stdio.h"]
if "FAKE_INCLUDES_REFERENCE" in text:
    here = os.path.dirname(os.path.abspath(__file__))
    read.append(os.path.join(here, "..", "..", "..", "solutions", "lab1_caching", "vector_add.cu"))
with open(deps, "w") as handle:
    # The target as nvcc writes it, unescaped; the files read, escaped.
    handle.write(f"{output} : " + " \\\n    ".join(escaped(path) for path in read) + "\n")
with open(output, "w", encoding="latin-1") as handle:
    handle.write(text)
if "-keep-dir" in args and "FAKE_NO_KEEP" not in text:  # nvcc's own device code and host-side preprocessed text for the file, as -keep leaves them
    stem = os.path.join(args[args.index("-keep-dir") + 1], os.path.splitext(os.path.basename(source))[0])
    with open(stem + ".fatbin", "w", encoding="latin-1") as handle:
        handle.write(text)
    pasted = re.sub(r"CAT\((\w+), *(\w+)\)", r"\1\2", text)
    with open(stem + ".cudafe1.cpp", "w", encoding="latin-1") as handle:  # host code: all of it, here
        handle.write(f'# 1 "{source}"\n{pasted}')
    with open(stem + ".cpp4.ii", "w", encoding="latin-1") as handle:
        handle.write(f'# 1 "/usr/include/stdio.h"\nextern FILE *fopen(const char *, const char *);\n# 1 "{source}"\n{pasted}')
