"""The instructors' grader: grades a folder of student submissions of one lab.

Modules, in the order a submission meets them:
  kit        what CMake built for the lab (grader, reference, compile flags)
  layouts    the submissions as instructors receive them (folders, GitHub Classroom,
             zips, Canvas, Gradescope): who each is, and where the lab's file is
  scan       forbidden libraries and file access, found in the source
  sandbox    running a program with a time limit and an output cap; the
             bubblewrap sandbox of the student's runner
  statuses   what a row can end as: the gradebook's words and the feedback's headline
  grading    one submission: staged, scanned, compiled, run, classified
  points     the points table and partial credit
  reports    gradebook, feedback, Gradescope results, class summary, run record
  exports    the gradebook as Canvas and Gradescope import scores
  gpus       several GPUs: which one this process grades on, their run records
  workers    one grading worker per GPU of a server (--gpus), over a shared queue
  slurm      the job array and the report job of --slurm
  cli        the command line (grader/grade.py)
"""
