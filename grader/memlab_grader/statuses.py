"""A submission's status: the words the gradebook shows for it, and the headline its
feedback opens with, defined together."""
from enum import Enum


class Status(str, Enum):
    """Each member is its gradebook text (a str, so it goes into JSON and CSV as is,
    and compares equal to the text read back) and has a `headline` for the feedback."""

    def __new__(cls, text: str, headline: str = ""):
        member = str.__new__(cls, text)
        member._value_ = text
        member.headline = headline
        return member

    def __str__(self) -> str:
        return self.value

    @classmethod
    def headline_of(cls, text: str) -> str:
        """The headline of the status whose gradebook text is @p text ("" if none is)."""
        member = cls._value2member_map_.get(text)
        return member.headline if member is not None else ""

    GRADED = ("graded", "Graded.")
    MISSING = ("missing file", "No submission: the lab's file is not in the folder.")
    AMBIGUOUS = ("ambiguous file",
                 "Not graded yet: more than one file could be the lab's, and the grader does not guess "
                 "which; they are named below, and your instructor will choose.")
    UNREADABLE = ("unreadable file", "The submitted file could not be read, or was refused; the reason is below.")
    FORBIDDEN = ("forbidden API", "Not graded: the file uses something this lab forbids.")
    COMPILE_ERROR = ("compile error", "Not graded: the file does not compile.")
    COMPILE_TIMEOUT = ("compile timed out", "Not graded: compiling took too long.")
    NOT_LOADABLE = ("build not loadable",
                    "Your build could not be loaded (is a function the lab asks for "
                    "missing or renamed?); the message is below.")
    CRASHED = ("crashed", "The process running your code crashed or exited; the checks that ran count.")
    TIMED_OUT = ("timed out",
                 "Your code did not finish in time (an endless loop on the CPU or the "
                 "GPU?); the checks that ran count.")
    OUTPUT_LIMIT = ("output limit", "Your code printed too much and was stopped; the checks before it count.")
    GPU_ERROR = ("GPU error", "Your code left the GPU unusable (a sticky CUDA error); the checks that ran count.")
    GPU_MEMORY = ("GPU memory exhausted",
                  "Your code kept the GPU's memory allocated; later checks could not "
                  "allocate theirs.")
    LEFT_GPU_WORK = ("left GPU work running",
                     "Your function returned while work it launched was still running on "
                     "the GPU (launched on another stream, or never ending?); the checks that ran count.")
    RAN_WHILE_STOPPED = ("ran while stopped",
                         "Your code ran while the grader had stopped it between calls (a "
                         "SIGCONT it arranged?); its process was ended. The checks that ran before count.")
    MEMORY_ERROR = ("memory error", "compute-sanitizer found memory errors; the submission was not graded further.")
    NO_GPU = ("not run: no GPU", "Compiled, but not run: the grading machine has no GPU.")
    GPU_FAILED = ("not run: GPU failed",
                  "Compiled, but not run: the grading machine's GPU failed before your code ran "
                  "(nothing of yours was judged); it will be graded on a working one.")
    GRADER_ERROR = ("grader error", "The grader could not run your build; tell your instructor.")
    # between the two phases; never stored
    COMPILED = ("compiled",)
    # the row of a submission an interrupted run did not reach; never stored
    NOT_GRADED_YET = ("not graded yet",)
