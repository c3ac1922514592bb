"""Finding what a submission may not use: forbidden libraries, file access,
other programs, and files of the course other than the lab's headers.

Four looks, because each misses what another sees:
  - before compiling, the source with comments and string literals blanked
    out (a comment that mentions cublasSgemm is not a use of it);
  - after compiling, the same reading of the file's own lines as the
    preprocessor wrote them (a name built by token pasting or a macro is
    spelled out there);
  - the compiler's list of every file the source included (an include
    spelled through a macro is still seen there);
  - and the names the built library imports from other libraries (a
    declaration renamed by an asm label is imported under its real name).
This is a deterrent that names what it found, not a sandbox: the lab builds are
also linked with --no-undefined, and every run is a process of its own.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Iterable, Iterator, List, Optional, Sequence, Tuple

# What each library a lab can forbid looks like in a source file.
LIBRARIES = {
    "cublas": ("cuBLAS", re.compile(r"(?i)^cublas"), re.compile(r"(?i)(^|/)cublas")),
    "thrust": ("Thrust", re.compile(r"^thrust$"), re.compile(r"(^|/)thrust/")),
    "cub": ("CUB", re.compile(r"^cub$"), re.compile(r"(^|/)cub/")),
}

FILES_AND_PROGRAMS = "reading files or running programs"
# Names that open files, map them, or start programs: forbidden wherever they appear.
_FILE_NAMES = {
    "fopen", "freopen", "fdopen", "tmpfile", "popen", "execl", "execlp",
    "execle", "execv", "execvp", "execvpe", "posix_spawn", "posix_spawnp", "dlopen", "dlmopen", "dlsym",
    "dlvsym", "syscall", "mmap", "ifstream", "ofstream", "fstream", "filebuf", "basic_ifstream",
    "basic_ofstream", "basic_fstream", "basic_filebuf", "filesystem", "opendir",
    # The same doors by other names (red team 16): large-file twins, the system calls behind
    # the exec family and fork, and what finds or maps code in a process.
    "fopen64", "freopen64", "tmpfile64", "_Fork", "execve", "execveat", "fexecve", "mmap64",
    "dladdr", "dladdr1", "dlinfo", "ptrace", "process_vm_readv", "process_vm_writev", "memfd_create", "shm_open",
    "wordexp", "__basic_file", "personality",
}
# POSIX calls with common names: forbidden when imported from the C library, and only then.
# A student's own function, method or variable may be named so: a stream-join event named
# fork (red team 18), a device helper named read, a window's write method (red team 27, which
# the source scan refused outright). A call of the C library's own shows among the build's
# imports however the source spelled it (check_imports).
_IMPORTED_FILE_NAMES = {"clone", "clone3", "socket", "connect", "socketpair", "open", "openat", "creat", "read",
                        "write", "pread", "pwrite", "readlink", "unlink", "open64", "openat64", "creat64", "pread64",
                        "pwrite64", "readlinkat", "unlinkat", "fork", "vfork", "system",
                        # More of the same doors (red team 29): vectored reads and writes, files named,
                        # made or removed, mount tables, and processes started on a terminal or detached.
                        "readv", "writev", "preadv", "pwritev", "preadv2", "pwritev2", "remove", "rename",
                        "renameat", "renameat2", "mkstemp", "mkostemp", "mkstemps", "mkostemps", "mkdtemp", "tmpnam",
                        "tempnam", "setmntent", "getmntent", "forkpty", "openpty", "login_tty", "daemon",
                        "pidfd_open", "pidfd_getfd", "open_by_handle_at", "name_to_handle_at"}
# How the C library names a function it also exports under another spelling: __open_2 and
# __read_chk (fortified, as Ubuntu's compilers build by default), __libc_open, open64, and
# glibc's libio aliases _IO_popen, _IO_fopen, _IO_fdopen (red team 29): an import is read as
# the name inside.
_C_LIBRARY_SPELLING = re.compile(r"^(?:__libc_|__|_IO_)?(.+?)(?:64)?(?:_2|_chk|_nocancel)?$")
_FILE_HEADERS = re.compile(
    r"^(fstream|filesystem|experimental/filesystem|fcntl\.h|unistd\.h|dlfcn\.h|spawn\.h|dirent\.h|"
    r"sys/mman\.h|sys/syscall\.h|sys/stat\.h)$")

OTHER_FILES = "including files other than the lab's headers"

# A line directive (#line 5 "x.h", or a marker # 5 "x.h") makes the preprocessor say that
# the lines after it come from another file: the second look, at the file's own lines after
# preprocessing (scan_preprocessed), would pass them over. No lab file needs one.
LINE_DIRECTIVES = "line directives (#line), which hide lines from this check"
# Read as the preprocessor reads a directive: lines spliced at a backslash, each comment one
# blank, and # also spelled %: (red team 16 wrote %:line and #\<newline>line).
_LINE_DIRECTIVE = re.compile(r"^[ \t]*(?:#|%:)[ \t]*(line\b|[0-9])", re.MULTILINE)
_SPLICE = re.compile(r"\\[ \t]*\r?\n")


def _line_directives(source: str) -> List[Finding]:
    spliced = _SPLICE.sub("", source)
    # A comment is one blank; a literal's text is no directive (a raw string may hold "# 1 ...").
    code = "".join(" " if kind == "comment" else re.sub(r"[^\n]", " ", text) if kind in ("string", "char") else text
                   for kind, text in _segments(spliced))
    return [Finding(LINE_DIRECTIVES, "#" + match.group(1), 0) for match in _LINE_DIRECTIVE.finditer(code)]

# GPU code a build loads at run time (from a string or bytes of its own) runs kernels that
# the lab grader's reading of the build's machine code never sees (machine_code.hpp).
GPU_CODE_AT_RUN_TIME = "loading GPU code at run time"
# The runtime's own registration calls (__cudaRegisterFatBinary, ...) and export table register
# a fatbin held as bytes (red team 12); no student's file has a reason to name them. Nor the
# names that swap the fatbin nvcc registers for other bytes (red team 14): renaming its symbol
# (#pragma redefine_extname fatbinData ...), or finding it in the loaded library
# (__ehdr_start, dl_iterate_phdr) and writing over it (mprotect); nor the handle nvcc's code
# keeps for the registered fatbin (__nv_fatbinhandle_for_managed_rt: red team 17).
_GPU_CODE_NAMES = re.compile(r"^(cuModuleLoad|cuLibraryLoad|cudaLibraryLoad|cuLink(Create|Add|Complete)|nvrtc|"
                             r"nvJitLink|nvPTXCompiler|cudaGetDriverEntryPoint|cuGetProcAddress|__cuda|"
                             r"cudaGetExportTable|__fatbinwrap|fatbinData$|__fatDeviceText|__nv_module_id|__nv_fatbinhandle|"
                             r"redefine_extname$|mprotect$|pkey_mprotect$|dl_iterate_phdr$|__ehdr_start$|"
                             r"__executable_start$)")
_GPU_CODE_HEADERS = re.compile(r"^(nvrtc\.h|nvJitLink\.h|nvPTXCompilerAPI\.h|crt/host_runtime\.h|"
                               r"fatbinary_section\.h|fatBinaryCtl\.h)$")

# The runner watches, through CUPTI's callbacks, which kernels each call launches (the method
# checks read those kernels: common/memlab/grading/launch_watch.hpp). A build that used CUPTI
# itself could unsubscribe the watch; no lab file has a reason to.
LAUNCH_WATCH = "the profiling interface (CUPTI), through which the runner watches the kernels a call launches"
_LAUNCH_WATCH_NAMES = re.compile(r"^cupti[A-Z]")
_LAUNCH_WATCH_HEADERS = re.compile(r"^(cupti[a-z_]*\.h|generated_cupti[a-z_]*\.h)$")

# Assembler directives in a string (an asm statement's text) that place a file or bytes in the
# build: `.incbin` reads any file the compiler can (red team 12), and bytes in `.nv_fatbin` are
# code the compiler did not make. Adjacent strings count as one, as the compiler joins them.
BY_HAND = "placing files or bytes in the build by hand"
# A directive starts an assembler statement: the text's start, or after a newline (written
# \n), a ';' or a label, with blanks before it ("float.string" in a message is not one).
_BY_HAND_DIRECTIVES = re.compile(r"(?:^|;|:|\\n|\n)(?:\s|\\t)*(\.(?:incbin|include|section|pushsection|nv_fatbin|byte|"
                                 r"2byte|4byte|8byte|short|word|long|quad|octa|ascii|asciz|string|fill|zero|skip|"
                                 r"space))\b|\b(redefine_extname)\b")  # _Pragma("redefine_extname ...")
# The section attribute places an object's bytes where the compiler's own code goes, whatever
# the section's name is spelled through (red team 13 built ".nv_fatbin" with #x). A function
# named section is not it (red team 15).
_SECTION_IN_ATTRIBUTES = re.compile(r"\b(section|__section__)\s*\(")
_GNU_SECTION = re.compile(r"\bgnu\s*::\s*(section|__section__)\s*\(")
_ATTRIBUTES = re.compile(r"\b(?:__attribute__|__attribute)\s*\(")


def _section_attributes(code: str) -> Iterator[re.Match]:
    """Where @p code asks for a section: `section(` inside an __attribute__((...))
    (up to its closing parenthesis: `__attribute__((device)) int section(int)`, a
    function named section once __device__ is expanded, is not it; red team 16), or
    [[gnu::section(...)]]."""
    for opening in _ATTRIBUTES.finditer(code):
        depth, end = 1, opening.end()
        while end < len(code) and depth:
            depth += {"(": 1, ")": -1}.get(code[end], 0)
            end += 1
        yield from _SECTION_IN_ATTRIBUTES.finditer(code, opening.end(), end)
    yield from _GNU_SECTION.finditer(code)


@dataclass(frozen=True)
class Finding:
    """One forbidden use: what kind, the name as written, and where."""

    what: str   # "cuBLAS", "reading files or running programs", ...
    name: str
    line: int   # 0 when it came from the compiler's list of included files

    def __str__(self) -> str:
        return f"{self.name} (line {self.line})" if self.line else self.name


def _continues_a_name(c: str) -> bool:
    """Whether @p c, just before R", makes the R part of a name, so that no raw
    string starts there: as gcc and nvcc read it, where a name may also hold $
    and any non-ASCII letter (red team 8 hid `fopen` behind `$R"(` and `\u00e9R"(`,
    which the compiler reads as a name and a plain string). Any non-ASCII
    character counts: one the compiler would not take in a name fails the build."""
    return c.isalnum() or c in "_$" or ord(c) > 127


_RAW_STRING = re.compile(r'(?:u8|u|U|L)?R"')


def _in_a_number(source: str, at: int) -> bool:
    """Whether the ' at @p at separates digits of a number (10'000, 0xff'ff): the
    token it ends began with a digit, and a digit follows."""
    start = at
    while start > 0 and (source[start - 1].isalnum() or source[start - 1] in "'._"):
        start -= 1
    return source[start:start + 1].isdigit() and source[at + 1:at + 2].isalnum()


def _segments(source: str) -> Iterator[Tuple[str, str]]:
    """@p source in order as ("code" | "comment" | "string" | "char", text) pieces,
    as the compiler reads them: a string's text keeps its quotes (a raw string's
    R"delimiter( and )delimiter" too)."""
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        two = source[i:i + 2]
        if two == "//":
            end = source.find("\n", i)
            end = n if end < 0 else end
            yield "comment", source[i:end]
        elif two == "/*":
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            yield "comment", source[i:end]
        elif (raw := _RAW_STRING.match(source, i)) and (i == 0 or not _continues_a_name(source[i - 1])):
            # R"( ... )", also with an encoding prefix: u8R, uR, UR, LR (red team 16 hid a line behind u8R).
            open_paren = source.find("(", raw.end())
            delimiter = source[raw.end():open_paren] if open_paren >= 0 else ""
            end = source.find(")" + delimiter + '"', open_paren + 1) if open_paren >= 0 else -1
            end = n if end < 0 else end + len(delimiter) + 2
            yield "string", source[i:end]
        elif c == "'" and _in_a_number(source, i):
            end = i + 1  # a digit separator (10'000), no character literal (red team 17)
            yield "code", c
        elif c in "\"'":
            j = i + 1
            while j < n and source[j] != c and source[j] != "\n":
                j += 2 if source[j] == "\\" else 1
            end = min(j + 1, n)
            yield "string" if c == '"' else "char", source[i:end]
        else:
            end = i + 1
            yield "code", c
        i = end


def blank_comments_and_literals(source: str, keep_strings: bool = False) -> str:
    """@p source with comments (and, unless @p keep_strings, string and character
    literals) replaced by spaces; newlines stay, so line numbers still hold."""
    def blank(text: str) -> str:
        return "".join(c if c == "\n" else " " for c in text)

    kept = ("code", "string", "char") if keep_strings else ("code",)
    return "".join(text if kind in kept else blank(text) for kind, text in _segments(source))


def string_contents(source: str) -> List[str]:
    """What the string literals of @p source hold, one entry per run of adjacent
    literals joined as the compiler joins them (".inc" "bin" is .incbin; only
    white space, comments or an encoding prefix between them); quotes and a raw
    string's delimiters dropped. Literals apart stay apart: two messages never
    make a directive of their ends (red team 15)."""
    runs: List[str] = []
    joined: List[str] = []
    between = ""  # the code since the last literal
    for kind, text in _segments(source):
        if kind == "string":
            if joined and between.strip() not in ("", "u8", "u", "U", "L"):
                runs.append("".join(joined))
                joined = []
            raw = _RAW_STRING.match(text) is not None
            joined.append(text[text.find("(") + 1:text.rfind(")")] if raw else text[1:-1])
            between = ""
        elif kind != "comment":
            between += text
    if joined:
        runs.append("".join(joined))
    return runs


_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include[ \t]*(.*)$", re.MULTILINE)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def scan_source(source: str, forbidden_libraries: Sequence[str]) -> List[Finding]:
    """Forbidden uses in @p source, in the order they appear."""
    findings: List[Finding] = []
    libraries = [LIBRARIES[name] for name in forbidden_libraries]

    # Included headers, read before string literals are blanked (a quoted header name is one).
    with_strings = blank_comments_and_literals(source, keep_strings=True)
    for match in _INCLUDE.finditer(with_strings):
        line = _line_of(with_strings, match.start())
        target = match.group(1).strip()
        header = re.match(r'^[<"]([^>"]*)[>"]', target)
        if not header:
            findings.append(Finding(OTHER_FILES, f"#include {target} (a computed include)", line))
            continue
        name = header.group(1)
        for label, _, header_pattern in libraries:
            if header_pattern.search(name):
                findings.append(Finding(label, name, line))
        if _FILE_HEADERS.match(name):
            findings.append(Finding(FILES_AND_PROGRAMS, name, line))
        if _GPU_CODE_HEADERS.match(name):
            findings.append(Finding(GPU_CODE_AT_RUN_TIME, name, line))
        if _LAUNCH_WATCH_HEADERS.match(name):
            findings.append(Finding(LAUNCH_WATCH, name, line))
        if name.startswith("/") or ".." in name.split("/"):
            findings.append(Finding(OTHER_FILES, name, line))

    findings += _line_directives(source)

    code = blank_comments_and_literals(source)
    for run in string_contents(source):
        for match in _BY_HAND_DIRECTIVES.finditer(run):
            findings.append(Finding(BY_HAND, match.group(1) or match.group(2), 0))
    code_without_includes = _INCLUDE.sub(lambda m: " " * len(m.group(0)), code)
    for match in _section_attributes(code_without_includes):
        findings.append(Finding(BY_HAND, match.group(1), _line_of(code_without_includes, match.start())))
    for match in _IDENTIFIER.finditer(code_without_includes):
        name = match.group(0)
        line = _line_of(code_without_includes, match.start())
        for label, name_pattern, _ in libraries:
            if name_pattern.search(name):
                findings.append(Finding(label, name, line))
        if _GPU_CODE_NAMES.match(name):
            findings.append(Finding(GPU_CODE_AT_RUN_TIME, name, line))
        if _LAUNCH_WATCH_NAMES.match(name):
            findings.append(Finding(LAUNCH_WATCH, name, line))
        if name in _FILE_NAMES:
            findings.append(Finding(FILES_AND_PROGRAMS, name, line))
    return findings


# "# 12 "/stage/precision.cu" 2": from here the compiler's output is that file's line 12
# (nvcc's front end also writes "# 13": the same file's line 13).
_LINE_MARKER = re.compile(r'^#[ \t]*(?:line[ \t]+)?([0-9]+)(?:[ \t]+"((?:[^"\\]|\\.)*)")?')
# A pragma, written out by the preprocessor on a line of its own (from _Pragma too): joined
# to the code of the same source line, a lone quote in it would blank the rest (red team 17).
# What a pragma may do is read in the source (the first look).
_PRAGMA_LINE = re.compile(r"^[ \t]*#[ \t]*pragma\b")
_CONDITIONAL = re.compile(r"^#[ \t]*(if|ifdef|ifndef|endif)\b")
_DISABLED = re.compile(r"^#[ \t]*if[ \t]+0[ \t]*$")


def lines_after_preprocessing(compiled: str, source: str) -> str:
    """The lines of @p source (an absolute path) in @p compiled, the
    preprocessor's output or nvcc's front end's, each at its own line number:
    macros expanded, comments gone; the lines of every other file, pragma lines
    and what `#if 0` sets apart (the front end puts device functions' bodies
    there) left out. A file's path is compared as written out in full: the file
    included again as "./precision.cu" is still the file (red team 16)."""
    lines: dict = {}
    source = os.path.normpath(source)
    folder = os.path.dirname(source)
    current, number, disabled = "", 0, 0
    raw_end = ""  # the end of a raw string literal that runs on past this line, ')delim"'
    for text in compiled.split("\n"):
        if raw_end:
            # Inside a raw string: text, whatever it looks like (a marker, #if 0).
            if current == source:
                lines[number] = lines[number] + " " + text if number in lines else text
            closed = text.find(raw_end)
            if closed >= 0:
                raw_end = _unclosed_raw_string(text[closed + len(raw_end):])
            number += 1
            continue
        marker = _LINE_MARKER.match(text)
        if disabled:
            conditional = _CONDITIONAL.match(text)
            if conditional:
                disabled += -1 if conditional.group(1) == "endif" else 1
        elif _DISABLED.match(text):
            disabled = 1
        elif marker:
            number = int(marker.group(1))
            if marker.group(2) is not None:
                current = os.path.normpath(os.path.join(folder, re.sub(r'\\(.)', r"\1", marker.group(2))))
            continue
        else:
            if current == source and text.strip() and not _PRAGMA_LINE.match(text):
                lines[number] = lines[number] + " " + text if number in lines else text
            raw_end = _unclosed_raw_string(text)
        if not marker:
            number += 1
    return "\n".join(lines.get(line, "") for line in range(1, max(lines, default=0) + 1))


def _unclosed_raw_string(line: str) -> str:
    """The end (')delim"') of a raw string literal that @p line opens and does not
    close, or "": the next lines are the literal's text, and a line in it that
    reads '# 5 "/usr/include/stdio.h"' or '#if 0' is neither a marker nor a
    directive (the compiler's output keeps a raw string as written)."""
    if 'R"' not in line:
        return ""
    for kind, text in _segments(line):
        raw = _RAW_STRING.match(text) if kind == "string" else None
        if raw:
            delimiter = text[raw.end():text.find("(")] if "(" in text else ""
            if not text.endswith(")" + delimiter + '"') or len(text) < raw.end() + 2 * len(delimiter) + 3:
                return ")" + delimiter + '"'
    return ""


HOST_ASSEMBLY = "assembly in host code (system calls by hand)"
_ASSEMBLY = re.compile(r"\b(asm|__asm__|__asm)\b")
_EMPTY_ASSEMBLY = re.compile(r'(?:\s*(?:volatile|__volatile__|inline|goto))*\s*\(\s*(?:"\s*"\s*)+[:)]')


def check_host_assembly(host_code: str, source: str) -> List[Finding]:
    """Assembly in the host code of @p source, as nvcc's front end wrote it for the
    host compiler (its <file>.cudafe1.cpp: the bodies of device functions, where
    inline PTX belongs, set apart under #if 0). On the host, assembly is a way to
    make system calls that no name, macro or import shows (red team 16); no lab
    needs it there."""
    text = lines_after_preprocessing(host_code, source)
    code = blank_comments_and_literals(text)
    with_strings = blank_comments_and_literals(text, keep_strings=True)
    findings = []
    for match in _ASSEMBLY.finditer(code):
        # An empty template, asm volatile("" ::: "memory"), is a compiler barrier: no instruction.
        if not _EMPTY_ASSEMBLY.match(with_strings, match.end()):
            findings.append(Finding(HOST_ASSEMBLY, match.group(1), _line_of(code, match.start())))
    return findings


def scan_preprocessed(preprocessed: str, source: str, forbidden_libraries: Sequence[str]) -> List[Finding]:
    """Forbidden uses in the lines of @p source as the preprocessor wrote them
    into @p preprocessed: what scan_source finds once every macro is expanded
    (red teams named forbidden calls through token pasting)."""
    return scan_source(lines_after_preprocessing(preprocessed, source), forbidden_libraries)


# The runtime's calls that nvcc's generated code makes in every build: imported by any
# build, and harmless there (the runner guards what a build registers: registered_code.hpp).
_NVCC_OWN_CALLS = re.compile(r"^__cuda(Register|Unregister|PushCallConfiguration|PopCallConfiguration|"
                             r"LaunchKernel|GetKernel|InitModule)")


def _mangled_names(mangled: str) -> List[str]:
    """The names a C++ symbol is made of (_ZNSt12__basic_fileIcE4openEPKc: __basic_file,
    open): each is its length, then that many characters (red team 17: a greedy reading
    took the first name only). Other letters of the mangling may read as one-letter
    names; no forbidden name is that short."""
    names, at, fresh = [], 0, True
    while at < len(mangled):
        digits = re.match(r"[0-9]+", mangled[at:]) if fresh or not mangled[at - 1].isdigit() else None
        if not digits:
            at, fresh = at + 1, False
            continue
        start = at + len(digits.group(0))
        name = mangled[start:start + int(digits.group(0))]
        if int(digits.group(0)) > 0 and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            names.append(name)
            at, fresh = start + len(name), True
        else:
            at, fresh = start, False
    return names


def check_imports(names: Iterable[str], forbidden_libraries: Sequence[str]) -> List[Finding]:
    """Forbidden functions among the names a build imports (elf.imported_names):
    what it calls in other libraries however the source spelled it (an asm
    label, `int f() __asm__("dlsym")`, renames a declaration; red team 16). A
    C++ name counts by the names it is made of (std::basic_ifstream's members)."""
    findings: List[Finding] = []
    libraries = [LIBRARIES[name] for name in forbidden_libraries]
    for imported in names:
        if imported.startswith("_Z"):
            parts = _mangled_names(imported)
        else:
            parts = [imported] + [name for name in _C_LIBRARY_SPELLING.match(imported).groups() if name != imported]
        for part in parts:
            for label, name_pattern, _ in libraries:
                if name_pattern.search(part):
                    findings.append(Finding(label, part, 0))
            if part in _FILE_NAMES or (part in _IMPORTED_FILE_NAMES and not imported.startswith("_Z")):
                findings.append(Finding(FILES_AND_PROGRAMS, part, 0))
            elif _GPU_CODE_NAMES.match(part) and not _NVCC_OWN_CALLS.match(part):
                findings.append(Finding(GPU_CODE_AT_RUN_TIME, part, 0))
            elif _LAUNCH_WATCH_NAMES.match(part):
                findings.append(Finding(LAUNCH_WATCH, part, 0))
    return findings


def read_dependencies(deps_text: str, target: str = "") -> List[str]:
    """The files listed in a compiler's make-style dependency file (-MD -MF): after the
    rule's target, @p target when given (nvcc writes it unescaped), else the text up to the
    first ': '. In the files' paths a space is written '\\ ', a '#' '\\#' and a '$' '$$' (as gcc
    writes them)."""
    text = deps_text.replace("\\\n", " ")
    if target and text.startswith(target) and text[len(target):].lstrip(" ").startswith(":"):
        files = text[len(target):].lstrip(" ")[1:]
    else:
        _, _, files = text.partition(": ")
    paths = re.findall(r"(?:\\ |[^\s])+", files)
    return [path.replace("\\ ", " ").replace("\\#", "#").replace("$$", "$") for path in paths]


def check_dependencies(dependencies: Iterable[str], *, source: str, allowed_headers: Iterable[str],
                       private_dirs: Iterable[str], forbidden_libraries: Sequence[str]) -> List[Finding]:
    """Forbidden files among what the compiler read for @p source: a forbidden
    library's headers, or a file under one of @p private_dirs (the course's
    sources, the staging area, the submissions) that is not an allowed header."""
    allowed = {os.path.realpath(path) for path in allowed_headers}
    allowed.add(os.path.realpath(source))
    private = [os.path.realpath(path) + os.sep for path in private_dirs]
    libraries = [LIBRARIES[name] for name in forbidden_libraries]
    findings: List[Finding] = []
    for dependency in dependencies:
        path = os.path.realpath(dependency)
        if path in allowed:
            continue
        for label, _, header_pattern in libraries:
            if header_pattern.search(path):
                findings.append(Finding(label, dependency, 0))
        if any(path.startswith(folder) for folder in private):
            findings.append(Finding(OTHER_FILES, dependency, 0))
    return findings


def describe(findings: Sequence[Finding]) -> str:
    """'cuBLAS: cublasSgemm (line 40); reading files or running programs: fopen (line 12)'."""
    by_kind: dict = {}
    for finding in findings:
        by_kind.setdefault(finding.what, [])
        if str(finding) not in by_kind[finding.what]:
            by_kind[finding.what].append(str(finding))
    return "; ".join(f"{what}: {', '.join(names[:3])}{' ...' if len(names) > 3 else ''}"
                     for what, names in by_kind.items())
