"""The submissions an instructor receives, in the layouts course tools make, turned into
one Submission per student: who (a name no other row has, and an id where the layout
gives one) and where the lab's file is (a file, or a member of a zip), or why there is none.

The layouts, found by looking (find() says which it found):
  folders     one folder per student, the file at its top (today's layout)
  GitHub      GitHub Classroom's clones, <assignment>-<user name>/, the file at its path in
              the course (labs/lab1_caching/vector_add.cu)
  zips        one zip per student, <name>.zip (folders and zips may be mixed)
  Canvas      Canvas's flat folder: <name>_<user id>_<file id>_<file name>, with LATE_ after
              the name for a late one, and <file>-1.cu for a file uploaded again
  Gradescope  Gradescope's export: submission_<id>/ folders and submission_metadata.yml,
              which names the students of each

In a student's files, the lab's file at the top (or at its path in the course) is taken.
Failing that, one file whose name is the lab's but for case, a " (1)" or "-1" copy suffix,
or one anywhere deeper in the folder or zip, is taken with a note that the row and the
feedback show; two or more such files make an "ambiguous file" row, never a guess.

Zips are hostile input: nothing is extracted. Only the lab's file is read, from memory and
at most MAX_SOURCE_BYTES of it (a zip bomb stops there); a member whose name leaves the zip
(../, /, C:), a symbolic link or an encrypted member is never taken; a zip over
MAX_ZIP_BYTES or with more than MAX_ZIP_MEMBERS members is refused unread. In a student's
folder, no file (a .cu or a zip) that is a symbolic link out of the student's folder is
opened, and nothing is opened that is not a regular file (a FIFO or a device could block
the run or never end): see open_regular.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import struct
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from .statuses import Status

MAX_SOURCE_BYTES = 1 << 20      # a lab's file is some kilobytes
MAX_ZIP_BYTES = 256 << 20       # a zip's own size, before it is opened
MAX_ZIP_MEMBERS = 20000
MAX_CENTRAL_DIRECTORY_BYTES = 8 << 20  # a zip's list of members: 20000 of them take some MiB
MAX_FILES_LOOKED_AT = 20000     # in one student's folder (a repository's clone), for near names
MAX_ZIPS_LOOKED_INTO = 20       # in one student's folder
AT_THE_COURSE_PATH, AT_THE_TOP = 2, 1  # a Candidate's rank: where the lab's file belongs, first
SKIPPED_FOLDERS = {"__MACOSX", "node_modules"}  # and every hidden one (.git)
GRADESCOPE_METADATA = "submission_metadata.yml"
CANVAS_NAME = re.compile(r"^(?P<name>.+?)_(?P<late>LATE_)?(?P<user>\d+)_(?P<attachment>\d+)_(?P<file>.+)$")
COPY_SUFFIX = re.compile(r"^(?P<stem>.*?)(?P<suffix> \(\d+\)|-\d+)$")


class LayoutError(Exception):
    """SUBMISSIONS does not hold a class's submissions (nothing has been written)."""


class SourceError(Exception):
    """The lab's file cannot be read (its message says why)."""


@dataclass
class Submission:
    student: str                  # the row's name: no other row has it
    source: Optional[str]         # the file to grade, or the zip that holds it; None: see problem
    member: Optional[str] = None  # the file's name in the zip @p source
    student_id: str = ""          # where the layout gives one
    id_kind: str = ""             # "Canvas user id", "Gradescope SID", "GitHub user name"
    email: str = ""
    note: str = ""                # how the file was found, when not by its name at its place
    problem: Optional[Tuple[str, str]] = None  # (status, detail) when there is no file to grade
    members: List[dict] = field(default_factory=list)  # a group's students: name, id, email
    folder: str = ""              # SUBMISSIONS, which no compile may read from
    # Which submission this is, whatever its row is named: its own name in SUBMISSIONS (a
    # folder's or a zip's; Canvas's <name>_<user id>; Gradescope's submission_<id>). --resume
    # keeps a stored outcome only for the submission with its key.
    key: str = ""
    # Its folder in OUT/students/, made from the key (row_folder): never the row's name,
    # which students choose (a Gradescope name) and which may be any length.
    row_folder: str = ""

    def identity(self) -> dict:
        """What an outcome keeps of who this is (the empty fields left out)."""
        fields = dict(student=self.student, student_id=self.student_id, id_kind=self.id_kind, email=self.email,
                      note=self.note, members=self.members, key=self.key, row_folder=self.row_folder)
        return {key: value for key, value in fields.items() if value}


@dataclass
class Found:
    layout: str                   # in words, for the console and run.json
    submissions: List[Submission]
    warnings: List[str]           # what looked wrong in SUBMISSIONS, for the console


@dataclass
class Candidate:
    path: str                     # a file, or a zip
    member: Optional[str]         # in the zip
    shown: str                    # for messages: where, relative to the student's files
    why: str                      # "" for the lab's own name; else how the name differs
    rank: int = 0                 # at one of the file's own places: AT_THE_COURSE_PATH, AT_THE_TOP; else 0
    repeated: bool = False        # a zip member whose name another member has too


def open_regular(path: str, inside: Optional[str] = None):
    """A binary file object for @p path, only if it is a regular file and, with @p inside, if
    it lies in that folder once symbolic links are followed; SourceError (why) otherwise.
    Checked before it is opened (a FIFO, /dev/tty or a socket is never opened, which could
    block) and again on what was opened (O_NONBLOCK and O_NOFOLLOW: nothing swapped in
    between can block or lead elsewhere)."""
    real = os.path.realpath(path)
    if inside is not None and not real.startswith(os.path.realpath(inside) + os.sep):
        raise SourceError("is a symbolic link out of the student's files: not taken")
    try:
        if not stat.S_ISREG(os.stat(real).st_mode):
            raise SourceError("is not a regular file (a FIFO, a device or a socket?): not taken")
        descriptor = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as error:
        raise SourceError(f"cannot be read ({error.strerror})") from None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise SourceError("is not a regular file: not taken")
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def _is_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def student_names(folder_names: List[str]) -> List[str]:
    """The names the students' folders are graded under, one each and all different: a
    folder's own name, or, where it is not UTF-8 (a zip made on another system, say), its
    bytes read as Latin-1 ("caf\\xe9" is "café"), so the gradebook, the feedback and OUT's
    folders can hold it. Such a name that another folder already has is marked, and
    numbered until it is one no other folder has (two rows under one name would share one
    outcome and one folder in OUT)."""
    taken = {name for name in folder_names if _is_utf8(name)}
    names = []
    for folder_name in folder_names:
        if _is_utf8(folder_name):
            names.append(folder_name)
            continue
        name = os.fsencode(folder_name).decode("latin-1")
        marked, number = f"{name} (folder name not UTF-8)", 1
        while name in taken:
            number += 1
            name = marked if number == 2 else f"{marked} {number - 1}"
        taken.add(name)
        names.append(name)
    return names


def _safe(name: str) -> str:
    """A name that is one folder in OUT/students/: no separators, not hidden, not '..'."""
    name = name.replace(os.sep, "_").replace("\0", "_").strip()
    return name if name and not name.startswith(".") else f"_{name}"


PLAIN_PUNCTUATION = set(" ._-()")
MAX_ROW_FOLDER_BYTES = 64


def _plain(name: str) -> bool:
    return (_is_utf8(name) and len(name.encode("utf-8")) <= MAX_ROW_FOLDER_BYTES and name[:1].isalnum()
            and all(c.isalnum() or c in PLAIN_PUNCTUATION for c in name))


def row_folder(key: str) -> str:
    """The name of a submission's folder in OUT/students/, from its @p key: the key itself
    where it is a plain name (letters, digits, space . _ - ( ), at most 64 bytes, starting
    with a letter or digit: `alice`, `submission_123`); else its plain characters, cut
    short, and a hash of the key that tells it apart (`caf\u00e9_x-3f2a9c01d4`). Only the
    reports name the student; no path any tool sees holds text a student chose."""
    if _plain(key):
        return key
    readable = key if _is_utf8(key) else os.fsencode(key).decode("latin-1")
    kept = "".join(c if c.isalnum() or c in PLAIN_PUNCTUATION else "_" for c in readable).strip(" ._-()")
    while len(kept.encode("utf-8")) > 40:
        kept = kept[:-1]
    digest = hashlib.sha256(os.fsencode(key)).hexdigest()[:10]
    return f"{kept.rstrip(' ._-(')}-{digest}" if kept else digest


def _unique(names: List[str], ids: List[str]) -> List[str]:
    """@p names made different: a repeated name gets its id, or a number."""
    repeated = Counter(names)
    taken, unique = set(), []
    for name, student_id in zip(names, ids):
        base = f"{name} ({student_id})" if repeated[name] > 1 and student_id else name
        candidate, number = base, 2
        while candidate in taken:
            candidate, number = f"{base} ({number})", number + 1
        taken.add(candidate)
        unique.append(candidate)
    return unique


def _how_named(name: str, wanted: str) -> Optional[str]:
    """"" if @p name is @p wanted; how it differs if it is a near match; else None."""
    if name == wanted:
        return ""
    stem, extension = os.path.splitext(name)
    copy = COPY_SUFFIX.match(stem)
    if name.lower() == wanted.lower():
        return "the name differs only in case"
    if copy and (copy["stem"] + extension).lower() == wanted.lower():
        suffix = copy["suffix"]
        kind = "a copy's suffix" if suffix.startswith(" ") else "Canvas's suffix for a file uploaded again"
        case = "" if copy["stem"] + extension == wanted else ", and the case differs"
        return f"'{suffix}' added ({kind}){case}"
    return None


def _central_directory_problem(handle, size: int) -> Optional[str]:
    """Why the zip open in @p handle is refused before zipfile parses it (None if it is not):
    a central directory larger than MAX_CENTRAL_DIRECTORY_BYTES, or more than
    MAX_ZIP_MEMBERS records in it, counted from their lengths and stopping at the cap (a
    zip's counts are not trusted: records can point at one file). Parsing millions of
    records would take minutes and gigabytes; this reads at most the directory's bytes."""
    tail_bytes = min(size, 22 + 0xFFFF)
    handle.seek(size - tail_bytes)
    tail = handle.read(tail_bytes)
    end = tail.rfind(b"PK\x05\x06")
    if end < 0 or end + 22 > len(tail):
        return None  # not a zip: zipfile says so in its words
    directory_size, = struct.unpack_from("<L", tail, end + 12)
    directory_end = size - tail_bytes + end
    locator = end - 20
    if directory_size == 0xFFFFFFFF and locator >= 0 and tail[locator:locator + 4] == b"PK\x06\x07":
        record_at, = struct.unpack_from("<Q", tail, locator + 8)  # ZIP64: the sizes are in its own record
        handle.seek(record_at)
        record = handle.read(56)
        if len(record) < 56 or record[:4] != b"PK\x06\x06":
            return None
        directory_size, = struct.unpack_from("<Q", record, 40)
        directory_end = record_at
    if directory_size > MAX_CENTRAL_DIRECTORY_BYTES:
        return (f"its list of members is {directory_size >> 10} KiB, more than the {MAX_CENTRAL_DIRECTORY_BYTES >> 10} "
                f"KiB a submission's zip may have")
    handle.seek(max(0, directory_end - directory_size))
    directory = handle.read(directory_size)
    at, records = 0, 0
    while at + 46 <= len(directory) and directory[at:at + 4] == b"PK\x01\x02":
        records += 1
        if records > MAX_ZIP_MEMBERS:
            return f"it has more than the {MAX_ZIP_MEMBERS} members a submission's zip may have"
        name, extra, comment = struct.unpack_from("<3H", directory, at + 28)
        at += 46 + name + extra + comment
    return None


def _zip_candidates(path: str, shown: str, wanted: str, in_course: str,
                    inside: Optional[str] = None) -> Tuple[List[Candidate], List[str]]:
    """The lab's file and its near matches in the zip @p path (in the student's folder
    @p inside, if it is in one), and why members or the zip were refused."""
    try:
        handle = open_regular(path, inside)
    except SourceError as error:
        return [], [f"{shown} {error}"]
    with handle:
        size = os.fstat(handle.fileno()).st_size
        if size > MAX_ZIP_BYTES:
            return [], [f"{shown} is {size >> 20} MiB, more than the {MAX_ZIP_BYTES >> 20} MiB a submission's zip "
                        f"may be"]
        try:
            problem = _central_directory_problem(handle, size)
            if problem:
                return [], [f"{shown} is refused unread: {problem}"]
            handle.seek(0)
            with zipfile.ZipFile(handle) as archive:
                members = archive.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, NotImplementedError,
                struct.error) as error:
            return [], [f"{shown} is not a zip that can be read ({error})"]
    path = os.path.realpath(path)
    if len(members) > MAX_ZIP_MEMBERS:
        return [], [f"{shown} has {len(members)} members, more than the {MAX_ZIP_MEMBERS} a submission's zip may have"]
    files = [m for m in members if not m.is_dir()]
    tops = {m.filename.split("/")[0] for m in files if "/" in m.filename and not m.filename.startswith("__MACOSX/")}
    single_top = tops.pop() + "/" if len(tops) == 1 and all("/" in m.filename for m in files) else ""
    ranks = {wanted: AT_THE_TOP, single_top + wanted: AT_THE_TOP, in_course: AT_THE_COURSE_PATH,
             single_top + in_course: AT_THE_COURSE_PATH}
    # Two members of one name: zipfile reads the last, whatever was looked at; never a guess.
    repeated = {name for name, n in Counter(m.filename for m in files).items() if n > 1}
    found, refused = [], []
    for member in files:
        parts = member.filename.replace("\\", "/").split("/")
        how = _how_named(parts[-1], wanted)
        if how is None:
            continue
        where = f"{shown}: {member.filename}"
        if member.filename.startswith(("/", "\\")) or ".." in parts or ":" in parts[0]:
            refused.append(f"{where} leaves the zip (a path traversal): not taken")
        elif stat.S_ISLNK(member.external_attr >> 16):
            refused.append(f"{where} is a symbolic link: not taken")
        elif member.flag_bits & 0x1:
            refused.append(f"{where} is encrypted: not taken")
        elif member.file_size > MAX_SOURCE_BYTES:
            refused.append(f"{where} is {member.file_size} bytes, more than a lab's file may be ({MAX_SOURCE_BYTES})")
        elif parts[-1].startswith(".") or any(p.startswith(".") or p == "__MACOSX" for p in parts[:-1]):
            continue  # macOS's ._ copies, hidden folders
        else:
            found.append(Candidate(path, member.filename, where, how, 0 if how else ranks.get(member.filename, 0),
                                   repeated=member.filename in repeated))
    return found, refused


def _folder_candidates(top: str, wanted: str, in_course: str) -> Tuple[List[Candidate], List[str]]:
    """The lab's file and its near matches anywhere in the folder @p top (zips in it included).
    The file at its own places (its path in the course, the top) is looked for first; the
    caps (MAX_FILES_LOOKED_AT files, MAX_ZIPS_LOOKED_INTO zips) bound only the search for
    the others, so a clone with a committed build/ of many files is still graded."""
    found, refused, looked_at, zips = [], [], 0, 0
    real_top = os.path.realpath(top)
    for shown, rank in ((in_course, AT_THE_COURSE_PATH), (wanted, AT_THE_TOP)):
        path = os.path.join(top, shown)
        if os.path.lexists(path):
            try:
                open_regular(path, inside=real_top).close()
                found.append(Candidate(os.path.realpath(path), None, shown, "", rank))
            except SourceError as error:
                refused.append(f"{shown} {error}")
    looked = {c.shown for c in found} | {wanted, in_course}
    for folder, subfolders, files in os.walk(top):  # symbolic links to folders are not followed
        subfolders[:] = sorted(d for d in subfolders if not d.startswith(".") and d not in SKIPPED_FOLDERS)
        for name in sorted(files):
            looked_at += 1
            if looked_at > MAX_FILES_LOOKED_AT:
                refused.append(f"more than {MAX_FILES_LOOKED_AT} files: the rest were not looked at for a file "
                               f"named like {wanted}")
                return found, refused
            if name.startswith("."):
                continue
            path = os.path.join(folder, name)
            shown = os.path.relpath(path, top)
            if shown in looked:
                continue
            if name.lower().endswith(".zip"):
                zips += 1
                if zips > MAX_ZIPS_LOOKED_INTO:
                    if zips == MAX_ZIPS_LOOKED_INTO + 1:
                        refused.append(f"more than {MAX_ZIPS_LOOKED_INTO} zips: the rest were not opened")
                    continue
                in_zip, why = _zip_candidates(path, shown, wanted, in_course, inside=real_top)
                found += in_zip
                refused += why
                continue
            how = _how_named(name, wanted)
            if how is None:
                continue
            try:
                open_regular(path, inside=real_top).close()
            except SourceError as error:
                refused.append(f"{shown} {error}")
                continue
            found.append(Candidate(os.path.realpath(path), None, shown, how, 0))
    return found, refused


def _holds(files: List[str]) -> str:
    shown = ", ".join(files[:6]) + (f" and {len(files) - 6} more" if len(files) > 6 else "")
    return f" (it holds {shown})" if files else " (it is empty)"


def _same_file(candidates: List[Candidate]) -> bool:
    """Whether @p candidates hold the same bytes (a folder and its zip, say)."""
    try:
        read = {read_source(Submission("", c.path, c.member)) for c in candidates}
    except SourceError:
        return False
    return len(read) == 1 and not any(c.repeated for c in candidates)


def _choose(found: List[Candidate], refused: List[str], wanted: str, where: str, holds: List[str]) -> dict:
    """The Submission fields for what was found in one student's files: the file to grade
    and a note, or the problem. The file at its path in the course comes first, then the
    one at the top (the course's build and tests use the first); at one place, copies of
    one file are one file, and different files there are ambiguous."""
    placed = sorted((c for c in found if c.rank), key=lambda c: -c.rank)
    best = [c for c in placed if c.rank == placed[0].rank] if placed else found[:1] if len(found) == 1 else found
    if len(best) > 1 and not (placed and _same_file(best)):
        names = ", ".join(c.shown for c in best)
        twice = [c.shown for c in best if c.repeated]
        why = f" ({twice[0].split(': ')[0]} holds two members of one name)" if twice else ""
        return dict(problem=(Status.AMBIGUOUS, f"{len(best)} files could be {wanted}{why}: {names}. Rename the one "
                                               f"to grade {wanted} (or remove the others) and grade again with "
                                               f"--resume."))
    if not best:
        if refused:
            return dict(problem=(Status.UNREADABLE, "; ".join(refused)))
        return dict(problem=(Status.MISSING, f"no {wanted} in {where}{_holds(holds)}"))
    chosen = best[0]
    notes = []
    if chosen.why:
        notes.append(f"graded {chosen.shown} as {wanted}: {chosen.why}")
    elif not chosen.rank:
        notes.append(f"graded {chosen.shown}, not at the top of the student's files")
    copies = [c.shown for c in best[1:]]
    if copies:
        notes.append(f"the same file is also {', '.join(copies)}")
    others = [c.shown for c in found if c not in best]
    if others:
        notes.append(f"also found {', '.join(others)} (not graded)")
    notes += refused
    return dict(source=chosen.path, member=chosen.member, note="; ".join(notes))


def _listing(path: str) -> List[str]:
    try:
        return sorted(entry for entry in os.listdir(path) if not entry.startswith("."))
    except OSError:
        return []


def _visible(folder: str) -> List[os.DirEntry]:
    entries = [e for e in os.scandir(folder) if not e.name.startswith(".") and e.name not in SKIPPED_FOLDERS]
    return sorted(entries, key=lambda e: os.fsencode(e.name))


# SUBMISSIONS' own entries are the instructor's (a link to a student's clone is followed);
# what is inside a student's files is the student's (see _folder_candidates).
def _is_dir(entry: os.DirEntry) -> bool:
    return entry.is_dir()


def _is_file(entry: os.DirEntry) -> bool:
    return entry.is_file()


def _finish(layout: str, named: List[Tuple[str, dict]], warnings: List[str]) -> Found:
    """Submissions with names no two rows share, made from (name, fields) pairs."""
    names = student_names([_safe(name) for name, _ in named])
    names = _unique(names, [fields.get("student_id", "") for _, fields in named])
    submissions = [Submission(student=name, **dict(dict(source=None), **fields))
                   for name, (_, fields) in zip(names, named)]
    # Two keys whose folders a case-insensitive file system takes for one are both hashed,
    # and a hashed folder that meets a folder taken already is hashed again: no two rows
    # ever share a folder (red team 10: `ab`, `AB` and a key named like ab's hash).
    clashing = Counter(row_folder(s.key).casefold() for s in submissions)
    taken = set()
    for submission in sorted(submissions, key=lambda s: s.key):
        folder, salt = row_folder(submission.key), ""
        while clashing[folder.casefold()] > 1 or folder.casefold() in taken:
            salt += "/"
            folder = row_folder(submission.key + salt)
        taken.add(folder.casefold())
        submission.row_folder = folder
    for submission in submissions:
        if submission.note:
            warnings.append(f"{submission.student}: {submission.note}")
    return Found(layout, submissions, warnings)


def _is_gradescope_export(folder: str) -> bool:
    """Whether @p folder is Gradescope's export: submission_metadata.yml and submission_<id>/
    folders beside it, and neither a clone nor the lab's file. A student's own folder can hold
    a file of that name (committed to their clone, say); taken for the export, it would name
    every row and give each an id, so a folder must look like the export as a whole."""
    try:
        entries = [e for e in os.scandir(folder) if not e.name.startswith(".")]
    except OSError:
        return False
    names = {e.name for e in entries}
    return (GRADESCOPE_METADATA in names and not os.path.exists(os.path.join(folder, ".git")) and
            any(e.name.startswith("submission_") and e.is_dir() for e in entries))


def _one_student_message(folder: str, shown: str, wanted: str) -> str:
    return (f"--submissions {folder} holds {shown} itself: that is one student's folder. Give the folder that holds "
            f"the class's submissions (one folder or zip per student, each with its {wanted}; GitHub Classroom's "
            f"clones; Canvas's or Gradescope's download).")


def find(folder: str, wanted: str, in_course: str) -> Found:
    """The submissions in @p folder, whatever the layout; @p wanted is the lab's file name and
    @p in_course its path in the course's repository (where a student's clone has it).
    Raises LayoutError when @p folder is not a class's submissions."""
    found = _find(folder, wanted, in_course)
    for submission in found.submissions:
        submission.folder = folder
    return found


def _find(folder: str, wanted: str, in_course: str) -> Found:
    entries = _visible(folder)
    names = [entry.name for entry in entries]
    if not entries:
        raise LayoutError(f"--submissions {folder} is empty: it has no student folders, zips or files. Give the "
                          f"folder that holds one folder (or zip) per student, each with its {wanted}.")
    if _is_gradescope_export(folder):
        return _gradescope(folder, wanted, in_course, [])
    only = entries[0] if len(entries) == 1 and _is_dir(entries[0]) else None
    if only is not None and _is_gradescope_export(only.path):
        return _gradescope(only.path, wanted, in_course, [f"Gradescope's export is in {only.name}/: graded from there."])
    canvas_files = [name for name in names if CANVAS_NAME.match(name) and os.path.isfile(os.path.join(folder, name))]
    if len(canvas_files) * 2 > len(names):
        return _canvas(folder, entries, wanted, in_course)
    if os.path.isfile(os.path.join(folder, in_course)):
        raise LayoutError(f"--submissions {folder} holds {in_course}: that is one student's repository. Give the "
                          f"folder that holds the class's clones (GitHub Classroom's assistant makes one).")
    students = [e for e in entries if _is_dir(e) or (_is_file(e) and e.name.lower().endswith(".zip"))]
    lab_files = [name for name in names if _how_named(name, wanted) is not None]
    if not students:
        if lab_files:
            raise LayoutError(_one_student_message(folder, lab_files[0], wanted))
        raise LayoutError(f"--submissions {folder} has no student folders{_holds(names)}: give one folder (or zip) "
                          f"per student, each with its {wanted}.")
    warnings = []
    ignored = [e.name for e in entries if e not in students]
    if lab_files:
        warnings.append(f"{', '.join(lab_files)} at the top of {folder} is no student's: ignored (is one of the "
                        f"student folders missing its file?)")
    elif ignored:
        warnings.append(f"ignored, being neither a folder nor a zip: {', '.join(ignored[:10])}"
                        f"{' ...' if len(ignored) > 10 else ''}")
    if len(students) == 1:
        warnings.append(f"one submission only: is {folder} the class's folder?")
    return _folders(folder, students, wanted, in_course, warnings)


def _assignment_prefix(names: List[str], in_course: str) -> Tuple[str, str]:
    """GitHub Classroom names each clone <assignment>-<user name>: the assignment's prefix
    to strip from @p names, or "" and, when unsure, the prefix that could be it. Sure are:
    the lab's own names as Classroom would write them (labs/lab1_caching gives
    'lab1-caching-', else 'lab1-'), when every name begins with one; else a prefix every
    name shares that ends at its only hyphen ('lab1-alice', 'lab1-bob': 'lab1-'). Unsure:
    'hw-cs101-alice' and 'hw-cs101-bob' could be the assignment hw with user names
    cs101-..., or hw-cs101 with alice and bob."""
    lab_folder = os.path.basename(os.path.dirname(in_course)).lower()
    for known in (lab_folder.replace("_", "-") + "-", lab_folder.split("_")[0] + "-"):
        if known != "-" and all(name.lower().startswith(known) and len(name) > len(known) for name in names):
            return names[0][:len(known)], ""
    common = os.path.commonprefix(names)
    prefix = common[:common.rfind("-") + 1]
    if not prefix or any(len(name) == len(prefix) for name in names):
        return "", ""
    return (prefix, "") if prefix.count("-") == 1 else ("", prefix)


def _folders(folder: str, students: List[os.DirEntry], wanted: str, in_course: str, warnings: List[str]) -> Found:
    """One folder or zip per student; GitHub Classroom's clones are folders too. A folder and
    a zip of one name (alice/ beside alice.zip: a Mac unzips each zip beside it) are one
    student's: one row, from both."""
    folders = [e for e in students if _is_dir(e)]
    clones = [e for e in folders if os.path.exists(os.path.join(e.path, ".git"))
              or os.path.isfile(os.path.join(e.path, in_course))]
    github = bool(folders) and len(clones) * 2 > len(folders)
    prefix, unsure = _assignment_prefix([e.name for e in folders], in_course) if github and len(folders) > 1 else ("", "")
    if unsure:
        warnings.append(f"the clones' names all begin '{unsure}', which may be the assignment's name or part of the "
                        f"user names: rows are named by the whole folder name")
    folder_names = {e.name for e in folders}
    beside = {e.name[:-len(".zip")]: e for e in students if not _is_dir(e) and e.name[:-len(".zip")] in folder_names}
    named = []
    for entry in students:
        if _is_dir(entry):
            found, refused = _folder_candidates(entry.path, wanted, in_course)
            holds = _listing(entry.path)
            zipped = beside.get(entry.name)
            if zipped is not None:
                in_zip, why = _zip_candidates(zipped.path, zipped.name, wanted, in_course)
                found, refused, holds = found + in_zip, refused + why, holds + [zipped.name]
                warnings.append(f"{entry.name}/ and {zipped.name} are taken for one student's files: one row")
            fields = _choose(found, refused, wanted, "the student's folder", holds)
            name = entry.name[len(prefix):] if prefix else entry.name
            identity = {}
            if github and len(folders) > 1:
                identity = (dict(student_id=name, id_kind="GitHub user name") if prefix else
                            dict(student_id=entry.name, id_kind="GitHub repository"))
            key = entry.name
        elif entry.name[:-len(".zip")] in beside:
            continue  # its folder's row has it
        else:
            found, refused = _zip_candidates(entry.path, entry.name, wanted, in_course)
            fields = _choose(found, refused, wanted, entry.name, [])
            name, identity, key = entry.name[:-len(".zip")], {}, entry.name
        named.append((name, dict(fields, key=key, **identity)))
    zips = len(students) - len(folders)
    if github:
        layout = "clones of the students' repositories (GitHub Classroom)" + (
            f"; the folders' common prefix '{prefix}' is taken for the assignment's, the rest for the GitHub user "
            f"name" if prefix else "")
    elif zips and folders:
        layout = "one folder or zip per student"
    else:
        layout = "one zip per student" if zips else "one folder per student"
    return _finish(layout, named, warnings)


def _canvas(folder: str, entries: List[os.DirEntry], wanted: str, in_course: str) -> Found:
    """Canvas's "Download Submissions": every student's files in one folder, each named
    <name>_[LATE_]<user id>_<file id>_<the name it was uploaded under>."""
    by_student: Dict[Tuple[str, str], List[Tuple[int, os.DirEntry, str, bool]]] = {}
    ignored = []
    for entry in entries:
        match = CANVAS_NAME.match(entry.name) if _is_file(entry) else None
        if not match:
            ignored.append(entry.name)
            continue
        by_student.setdefault((match["name"], match["user"]), []).append(
            (int(match["attachment"]), entry, match["file"], bool(match["late"])))
    named = []
    for (name, user), files in by_student.items():
        files.sort(key=lambda f: -f[0])  # the newest upload first
        found, refused = [], []
        for _, entry, uploaded, _ in files:
            if uploaded.lower().endswith(".zip"):
                in_zip, why = _zip_candidates(entry.path, uploaded, wanted, in_course)
                found, refused = found + in_zip, refused + why
                continue
            how = _how_named(uploaded, wanted)
            if how is not None:
                found.append(Candidate(entry.path, None, uploaded, how, 0 if how else AT_THE_TOP))
        fields = _choose(found, refused, wanted, "the student's Canvas files", [f[2] for f in files])
        if any(late for *_, late in files):
            fields["note"] = "; ".join(filter(None, ["Canvas marked it late", fields.get("note", "")]))
        named.append((name, dict(fields, student_id=user, id_kind="Canvas user id", key=f"{name}_{user}")))
    warnings = [f"ignored, not named as Canvas names submissions: {', '.join(ignored[:10])}"
                f"{' ...' if len(ignored) > 10 else ''}"] if ignored else []
    return _finish("Canvas's download (one folder of <name>_<user id>_<file id>_<file> files)", named, warnings)


def _yaml_text(value: str) -> str:
    """A YAML scalar as Gradescope writes them: plain, 'single' or "double" quoted."""
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            return str(json.loads(value))
        except ValueError:
            return value[1:-1]
    return "" if value in ("~", "null") else value


def read_gradescope_metadata(path: str) -> Dict[str, List[dict]]:
    """submission_metadata.yml: each submission's folder name and its submitters (name, sid,
    email). Only that part of the YAML is read, line by line (no YAML library is needed):

        submission_123456:
          :submitters:
          - :name: Ada Lovelace
            :sid: '1815'
            :email: ada@example.edu
          :created_at: ...
    """
    with open(path, encoding="utf-8", errors="replace") as handle:
        lines = handle.read().splitlines()
    records: Dict[str, List[dict]] = {}
    key, submitters_at = None, None
    for line in lines:
        body = line.strip()
        if not body or body.startswith("#") or body == "---":
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0:
            key = _yaml_text(body[:-1]) if body.endswith(":") else None
            submitters_at = None
            if key is not None:
                records[key] = []
            continue
        if key is None:
            continue
        if re.match(r"^:submitters:(\s+&\S+)?$", body):  # Ruby's YAML anchors a shared list: "&1"
            submitters_at = indent
            continue
        if submitters_at is None or (indent <= submitters_at and not body.startswith("- ")):
            submitters_at = None
            continue
        if body.startswith("- "):
            records[key].append({})
            body = body[2:].strip()
        field_match = re.match(r"^:(name|sid|email):\s*(.*)$", body)
        if field_match and records[key]:
            records[key][-1][field_match[1]] = _yaml_text(field_match[2])
    return records


def _gradescope(folder: str, wanted: str, in_course: str, warnings: List[str]) -> Found:
    """Gradescope's "Export Submissions": a folder per submission, submission_<id>/, and
    submission_metadata.yml naming each one's students (more than one for a group)."""
    try:
        metadata = read_gradescope_metadata(os.path.join(folder, GRADESCOPE_METADATA))
    except OSError as error:
        raise LayoutError(f"cannot read {os.path.join(folder, GRADESCOPE_METADATA)}: {error.strerror}") from None
    entries = [e for e in _visible(folder) if e.name != GRADESCOPE_METADATA]
    ignored = [e.name for e in entries if not _is_dir(e)]
    if ignored:
        warnings.append(f"ignored, being no submission's folder: {', '.join(ignored[:10])}")
    named = []
    for entry in (e for e in entries if _is_dir(e)):
        found, refused = _folder_candidates(entry.path, wanted, in_course)
        fields = _choose(found, refused, wanted, "the submission's folder", _listing(entry.path))
        people = metadata.get(entry.name, [])
        if not people:
            warnings.append(f"{entry.name} is not in {GRADESCOPE_METADATA}: graded under its folder's name")
            named.append((entry.name, dict(fields, key=entry.name)))
            continue
        members = [dict(name=p.get("name", ""), id=p.get("sid", ""), email=p.get("email", "")) for p in people]
        name = " & ".join(p["name"] or p["email"] or entry.name for p in members)
        named.append((name, dict(fields, student_id=";".join(p["id"] for p in members if p["id"]),
                                 id_kind="Gradescope SID", email=";".join(p["email"] for p in members if p["email"]),
                                 members=members if len(members) > 1 else [], key=entry.name)))
    submissions_of: Dict[str, List[str]] = {}
    for entry_name, people in metadata.items():
        for person in people:
            who = person.get("sid") or person.get("email")
            if who and entry_name in {e.name for e in entries}:
                submissions_of.setdefault(who, []).append(entry_name)
    for who, where in sorted(submissions_of.items()):
        if len(where) > 1:
            warnings.append(f"{who} is a submitter of {len(where)} submissions ({', '.join(where)}): the exports give "
                            f"them a line for each, and an upload keeps one; choose the one to keep")
    missing = sorted(set(metadata) - {e.name for e in entries})
    if missing:
        warnings.append(f"{GRADESCOPE_METADATA} names submissions with no folder here: {', '.join(missing[:10])}")
    if not named:
        raise LayoutError(f"--submissions {folder} is Gradescope's export with no submission folders in it")
    return _finish("Gradescope's export (submission_<id>/ folders and submission_metadata.yml)", named, warnings)


def read_source(submission: Submission) -> bytes:
    """The bytes of the lab's file, at most MAX_SOURCE_BYTES of them read; SourceError otherwise."""
    limit = MAX_SOURCE_BYTES
    too_large = f"more than {limit} bytes: a lab's file is some kilobytes"
    try:
        try:
            opened = open_regular(submission.source)
        except SourceError as error:
            raise SourceError(f"{os.path.basename(submission.source)} {error}") from None
        if submission.member is None:
            with opened as handle:
                data = handle.read(limit + 1)
        else:
            with opened, zipfile.ZipFile(opened) as archive:
                member = archive.getinfo(submission.member)
                if stat.S_ISLNK(member.external_attr >> 16) or member.flag_bits & 0x1:
                    raise SourceError(f"{submission.member} is a symbolic link or encrypted")
                with archive.open(member) as handle:
                    data = handle.read(limit + 1)  # what the zip says of the size is not trusted
    except (OSError, KeyError, zipfile.BadZipFile, NotImplementedError, RuntimeError, ValueError) as error:
        raise SourceError(str(error)) from None
    if len(data) > limit:
        raise SourceError(too_large)
    return data
