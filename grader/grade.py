#!/usr/bin/env python3
"""Grade a folder of student submissions of one lab: `make grade LAB=N SUBMISSIONS=DIR OUT=DIR`,
or grader/grade.py --help for every option."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from memlab_grader.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
