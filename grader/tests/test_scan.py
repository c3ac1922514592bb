"""The forbidden-API scan: what counts as a use, and what does not."""
import glob
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import helpers  # noqa: F401  (puts grader/ on the path)
from memlab_grader import elf, scan

ALL = ["cublas", "thrust", "cub"]


def names(source, libraries=ALL):
    return [(f.what, f.name, f.line) for f in scan.scan_source(source, libraries)]


class Scan(unittest.TestCase):
    def test_comments_and_strings_are_not_uses(self):
        source = ('// cublasSgemm(handle)\n/* thrust::sort\n fopen */\nconst char* s = "cub::DeviceReduce fopen";\n'
                  "const char* r = R\"x(thrust::sort \" fopen)x\";\nchar c = '\\'';\nint fine = 1;\n")
        self.assertEqual(names(source), [])

    def test_a_name_before_r_quote_is_no_raw_string(self):
        # gcc and nvcc read $R, \u00e9R and \u00a8R as names followed by a plain string: what
        # follows is code (red team 8 hid fopen there, compiled, and the scan saw nothing).
        for prefix in ("$", "\u00e9", "\u00a8", "\ufffd"):
            source = f'#define {prefix}R\nconst char* a = {prefix}R"(";\nvoid f() {{ fopen("x", "r"); }}\nconst char* b = ")";\n'
            self.assertEqual(names(source), [(scan.FILES_AND_PROGRAMS, "fopen", 3)], prefix)

    def test_each_library_is_found_by_name_and_by_header(self):
        source = "#include <cublas_v2.h>\n#include \"thrust/sort.h\"\nvoid f() { cub::WarpReduce<int> r; cublasSgemm_v2(); }\n"
        self.assertEqual(names(source), [("cuBLAS", "cublas_v2.h", 1), ("Thrust", "thrust/sort.h", 2),
                                         ("CUB", "cub", 3), ("cuBLAS", "cublasSgemm_v2", 3)])

    def test_a_raw_string_with_an_encoding_prefix_ends_where_the_compiler_ends_it(self):
        # Red team 16: u8R"(")" was read as a name and an unclosed string that blanked the line.
        self.assertEqual([n for _, n, _ in names('auto s = u8R"(")"; auto f = &fopen;\n')], ["fopen"])
        for prefix in ("u", "U", "L", ""):
            self.assertEqual([n for _, n, _ in names(f'auto s = {prefix}R"x(")x"; int popen;\n')], ["popen"])

    def test_a_digit_separator_starts_no_character_literal(self):
        # Red team 17: 10'000 read as an unclosed literal blanked the rest of the line.
        self.assertEqual([n for _, n, _ in names("constexpr int kRows = 10'000; int popen;\n")], ["popen"])
        self.assertEqual([n for _, n, _ in names("auto c = u8'a'; int x = 0xff'ff; int dlsym;\n")], ["dlsym"])

    def test_posix_names_are_left_to_the_imports(self):
        # Red team 18: a fair file's stream-join event was named fork. Red team 27: a device helper
        # named read and a window's write method, which the source scan used to refuse. A call of
        # the C library's own is among the build's imports (Imports below).
        self.assertEqual(names("struct M { cudaEvent_t fork, join; }; void f(M m) { use(m.fork); bool system = 0; }"),
                         [])
        self.assertEqual(names("__device__ float read(const float* p, int i) { return p[i]; }\n"
                               "struct W { __device__ void write(int j, double v); };\n"
                               "__global__ void k(const float* p, W w) { w.write(0, read(p, 0)); }\n"), [])

    def test_a_library_the_lab_allows_is_not_reported(self):
        self.assertEqual(names("void f() { thrust::sort(); }", ["cublas"]), [])

    def test_file_access_and_programs(self):
        source = ('#include <fstream>\nvoid f() { std::ifstream in("x"); int n = popen("ls", "r");\n'
                  "  reader.read(buffer); int read = 2; }\n")
        self.assertEqual(names(source), [(scan.FILES_AND_PROGRAMS, "fstream", 1),
                                         (scan.FILES_AND_PROGRAMS, "ifstream", 2),
                                         (scan.FILES_AND_PROGRAMS, "popen", 2)])

    def test_loading_gpu_code_at_run_time(self):
        source = ('#include <nvrtc.h>\nvoid f() { void* p; cudaGetDriverEntryPoint("cuModuleLoadData", &p, 0);\n'
                  "  cuLibraryLoadData(0, 0, 0, 0, 0, 0, 0, 0); cudaLibraryLoadFromFile(0, 0, 0, 0, 0, 0, 0, 0);\n"
                  "  nvJitLinkCreate(0, 0, 0); int cuLinked = 0; cudaLaunchKernel(0, 0, 0, 0, 0, 0); }\n")
        self.assertEqual(names(source), [(scan.GPU_CODE_AT_RUN_TIME, "nvrtc.h", 1),
                                         (scan.GPU_CODE_AT_RUN_TIME, "cudaGetDriverEntryPoint", 2),
                                         (scan.GPU_CODE_AT_RUN_TIME, "cuLibraryLoadData", 3),
                                         (scan.GPU_CODE_AT_RUN_TIME, "cudaLibraryLoadFromFile", 3),
                                         (scan.GPU_CODE_AT_RUN_TIME, "nvJitLinkCreate", 4)])

    def test_the_profiling_interface_is_named(self):
        # The runner's launch watch is CUPTI's only subscriber; a build could unsubscribe it.
        source = '#include <cupti.h>\nvoid f() { cuptiUnsubscribe(0); }\n'
        self.assertEqual(names(source), [(scan.LAUNCH_WATCH, "cupti.h", 1), (scan.LAUNCH_WATCH, "cuptiUnsubscribe", 2)])
        self.assertEqual([(f.what, f.name) for f in scan.check_imports(["cuptiUnsubscribe"], [])],
                         [(scan.LAUNCH_WATCH, "cuptiUnsubscribe")])
        self.assertEqual(names("int cupti_count = 0;  // a name of one's own\n"), [])

    def test_the_runtimes_own_registration_calls(self):
        source = ('#include <crt/host_runtime.h>\nvoid f() { void** h = __cudaRegisterFatBinary(0);\n'
                  "  const void* t; cudaGetExportTable(&t, 0); }\n")
        self.assertEqual(names(source), [(scan.GPU_CODE_AT_RUN_TIME, "crt/host_runtime.h", 1),
                                         (scan.GPU_CODE_AT_RUN_TIME, "__cudaRegisterFatBinary", 2),
                                         (scan.GPU_CODE_AT_RUN_TIME, "cudaGetExportTable", 3)])

    def test_assembler_directives_that_place_files_or_bytes(self):
        # Adjacent strings are one to the compiler, so ".inc" "bin" is .incbin (red team 12).
        source = ('asm(".pushsection .nv_fatbin, \\"a\\"\\n.byte 1, 2\\n.popsection");\n'
                  'asm(".inc" "bin \\"/course/solutions/lab4_matmul/matmul.cu\\"");\n')
        self.assertEqual([n for _, n, _ in names(source)], [".pushsection", ".byte", ".incbin"])
        # Inline PTX, a std::array's fill and a message with dots are not.
        honest = ('__device__ unsigned lane() { unsigned id; asm("mov.u32 %0, %%laneid;" : "=r"(id)); return id; }\n'
                  'void f(std::array<int, 4>& a) { a.fill(0); printf("see section 2. byte order\\n"); }\n')
        self.assertEqual(names(honest), [])

    def test_ways_to_swap_the_fatbin_nvcc_registers(self):
        # Red teams 13 and 14: nvcc's fatbin symbol renamed by a pragma (or _Pragma's string),
        # the library's fatbin found in memory and written over, bytes placed by a section
        # attribute whose name is spelled through the preprocessor.
        source = ('#pragma redefine_extname fatbinData notes\n'
                  '_Pragma("redefine_extname fatbinData notes")\n'
                  'extern "C" int mprotect(void*, unsigned long, int); extern "C" const char __ehdr_start[];\n'
                  '#define NAME(x) #x\n__attribute__((section(NAME(.nv_fatbin)), used)) const int w[1] = {0};\n')
        self.assertEqual(names(source), [(scan.BY_HAND, "redefine_extname", 0),
                                         (scan.BY_HAND, "section", 5),
                                         (scan.GPU_CODE_AT_RUN_TIME, "redefine_extname", 1),
                                         (scan.GPU_CODE_AT_RUN_TIME, "fatbinData", 1),
                                         (scan.GPU_CODE_AT_RUN_TIME, "mprotect", 3),
                                         (scan.GPU_CODE_AT_RUN_TIME, "__ehdr_start", 3)])
        # Pragmas that tune loops, and names that merely contain these words, are not.
        honest = ("#pragma unroll 4\nint sections = 2; int mprotect_count = 0; float fatbinDataSize = 0;\n"
                  "struct Section { int n; }; int cross_section(int a) { return a; }\n")
        self.assertEqual(names(honest), [])

    def test_string_literals_apart_are_not_joined(self):
        # Red team 15: two honest messages ending "warps." and starting "zero-warp" made ".zero",
        # and "float.string" in one message is no directive: a directive starts a statement.
        honest = ('static_assert(kThreads % 32 == 0, "blocks of whole warps.");\n'
                  'static_assert(kWarps > 0, "zero-warp blocks are useless");\n'
                  'void f() { printf("float.string .long ago\\n"); }\n'
                  'int section(int a) { return a; } struct Tiles { int section(); };\n')
        self.assertEqual(names(honest), [])
        # Adjacent literals stay one, even with an encoding prefix between them.
        self.assertEqual([n for _, n, _ in names('asm(".inc" u8"bin \\"/x\\"");\nasm("L1: .quad 5");\n')],
                         [".incbin", ".quad"])

    def test_includes_outside_the_lab(self):
        source = '#include "../../solutions/lab1_caching/vector_add.cu"\n#include </etc/passwd>\n#define H <x.h>\n#include H\n'
        self.assertEqual([n for _, n, _ in names(source)],
                         ["../../solutions/lab1_caching/vector_add.cu", "/etc/passwd", "#include H (a computed include)"])

    def test_the_shipped_skeletons_and_solutions_are_clean(self):
        for folder in ("labs", "solutions"):
            for lab in sorted(os.listdir(os.path.join(helpers.SOURCE_DIR, folder))):
                directory = os.path.join(helpers.SOURCE_DIR, folder, lab)
                for name in os.listdir(directory) if os.path.isdir(directory) else []:
                    if name.endswith(".cu") and name != "seed_bugs.cu":
                        with open(os.path.join(directory, name), encoding="utf-8") as handle:
                            self.assertEqual(names(handle.read()), [], f"{folder}/{lab}/{name}")


class Preprocessed(unittest.TestCase):
    """The second look: the file's own lines after the preprocessor (nvcc's <file>.cpp4.ii)."""
    SOURCE = "/stage/ab12/vector_add.cu"

    def preprocessed(self, *parts):
        return "\n".join(parts) + "\n"

    def test_names_pasted_by_a_macro_are_seen(self):
        # As red team 3 wrote them: RT_JOIN(dl, sym) is dlsym once the macro is expanded.
        text = self.preprocessed(f'# 0 "{self.SOURCE}"', '# 1 "/usr/include/dlfcn.h" 1 3 4',
                                 "extern void* dlsym(void*, const char*);", f'# 3 "{self.SOURCE}" 2', "",
                                 'extern "C" void* dlsym(void*, const char*);', "void f() { if (dlsym(0, 0)) {} }")
        self.assertEqual([(f.what, f.name, f.line) for f in scan.scan_preprocessed(text, self.SOURCE, ALL)],
                         [(scan.FILES_AND_PROGRAMS, "dlsym", 4), (scan.FILES_AND_PROGRAMS, "dlsym", 5)])

    def test_only_the_files_own_lines_are_read(self):
        # Headers declare every forbidden name; only what the file's lines expand to counts.
        text = self.preprocessed(f'# 1 "{self.SOURCE}"', '# 1 "/usr/include/stdio.h" 1 3 4',
                                 "extern FILE *fopen(const char *, const char *);", "int dlopen;",
                                 f'# 2 "{self.SOURCE}" 2', "int main() { return 0; }")
        self.assertEqual(scan.scan_preprocessed(text, self.SOURCE, ALL), [])
        self.assertEqual(scan.lines_after_preprocessing(text, self.SOURCE), "\nint main() { return 0; }")
        # Another file of the same name elsewhere is not the file; the file included as "./" is (red team 16).
        self.assertEqual(scan.lines_after_preprocessing(text, "/elsewhere/vector_add.cu"), "")
        again = text + '# 1 "/stage/ab12/./vector_add.cu" 1\nint fork;\n'
        self.assertEqual(scan.lines_after_preprocessing(again, self.SOURCE), "int fork;\nint main() { return 0; }")

    def test_a_raw_string_that_looks_like_a_marker_hides_no_line(self):
        # The preprocessor keeps a raw string as written: a line in it that reads like a marker
        # or an #if 0 is the literal's text, and the file's next lines are still the file's.
        for inside in ('# 1 "/usr/include/stdio.h" 1 3', "#if 0"):
            text = self.preprocessed(f'# 1 "{self.SOURCE}"', 'const char* s = R"x(', inside, ')x";',
                                     "void f() { popen(); }")
            self.assertEqual([(f.name, f.line) for f in scan.scan_preprocessed(text, self.SOURCE, ALL)],
                             [("popen", 4)], inside)

    def test_a_line_directive_that_would_hide_lines_is_forbidden(self):
        source = '#line 1 "/usr/include/stdio.h"\nint fopen_count;\n  # 7 "x.h"\n'
        self.assertEqual(names(source), [(scan.LINE_DIRECTIVES, "#line", 0), (scan.LINE_DIRECTIVES, "#7", 0)])
        # However the preprocessor is let read it (red team 16): a digraph, a spliced line, a comment.
        for hidden in ('%:line 5 "x.h"\n', '#\\\nline 5 "x.h"\n', '# /* a\n comment */ line 5\n',
                       '%: 5 "/usr/include/stdio.h" 1 3\n'):
            self.assertEqual([w for w, _, _ in names(hidden)], [scan.LINE_DIRECTIVES], hidden)
        honest = "#pragma unroll 4\n#if 0\n#endif\n#define LINE 3\nint x = LINE; // #line 5\n"
        self.assertEqual(names(honest), [])


    def test_with_the_real_preprocessor_only_pasted_names_are_new(self):
        # Every skeleton, solution and corpus file, preprocessed by nvcc as grade.py's compile does:
        # the second look finds nothing in a file the first passes, but in the files that paste names.
        nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
        if not os.access(nvcc, os.X_OK):
            self.skipTest("no nvcc")
        pasted = {"lab1/01-mitm_fake_pings_slow_kernel", "lab1/05-freeze_escape_hopper",
                  "lab1/09-borrow_reference_by_search", "lab1/10-early_reply_hidden_in_freeze",
                  "lab4/11-mitm_fake_pings_all_naive", "lab5/21-mitm_fake_pings_thread_per_row",
                  "lab5/22-early_reply_hidden_in_freeze",
                  "lab3/02-trick_self_include_hides_lines_from_second_look"}  # round 16: pasted, and read again
        source = helpers.SOURCE_DIR
        files = sorted(glob.glob(os.path.join(source, "labs", "*", "*.cu")) +
                       glob.glob(os.path.join(source, "solutions", "*", "*.cu")) +
                       glob.glob(os.path.join(source, "grader", "corpus", "red-team", "**", "lab?", "*", "*.cu"),
                                 recursive=True))
        self.assertGreater(len(files), 60)
        caught = set()
        with tempfile.TemporaryDirectory() as work:
            for path in files:
                if path.endswith("seed_bugs.cu"):
                    continue
                lab = re.search(r"[/_]lab([0-9])[/_]", path).group(1)
                lab_dir = glob.glob(os.path.join(source, "labs", f"lab{lab}_*"))[0]
                output = os.path.join(work, "file.ii")
                subprocess.run([nvcc, "-E", "-O3", "-DNDEBUG", "-std=c++17", f"-I{lab_dir}",
                                f"-I{os.path.join(source, 'common')}", path, "-o", output], check=True)
                with open(path, encoding="utf-8", errors="replace") as handle:
                    first = {(f.what, f.name) for f in scan.scan_source(handle.read(), ALL)}
                with open(output, encoding="utf-8", errors="replace") as handle:
                    second = {(f.what, f.name) for f in scan.scan_preprocessed(handle.read(), path, ALL)}
                name = "/".join(path.split(os.sep)[-3:-1])
                if second and not first:
                    caught.add(name)
                    self.assertIn(name, pasted, f"{path}: {second}")
        self.assertEqual(caught, pasted)


class Imports(unittest.TestCase):
    """The fourth look: the functions the built library imports, however the source named them."""

    def test_forbidden_functions_are_found_among_the_imports(self):
        imported = ["dlsym", "fork", "write", "cudaLibraryLoadData", "cublasSgemm_v2",
                    "_ZNSt14basic_ifstreamIcSt11char_traitsIcEEC1EPKcSt13_Ios_Openmode"]
        self.assertEqual([(f.what, f.name) for f in scan.check_imports(imported, ["cublas"])],
                         [(scan.FILES_AND_PROGRAMS, "dlsym"), (scan.FILES_AND_PROGRAMS, "fork"),
                          (scan.FILES_AND_PROGRAMS, "write"), (scan.GPU_CODE_AT_RUN_TIME, "cudaLibraryLoadData"),
                          ("cuBLAS", "cublasSgemm_v2"), (scan.FILES_AND_PROGRAMS, "basic_ifstream")])
        # Other names for the same doors (red team 16): large-file twins, fortified and libc spellings.
        for other in ("fopen64", "_Fork", "execve", "__open_2", "__open64_2", "open64", "clone", "socket",
                      "__read_chk", "__pread64_chk", "__readlink_chk", "system", "read",
                      "__open64_nocancel", "__read_nocancel", "wordexp", "personality",
                      "_ZNSt12__basic_fileIcE4openEPKcSt13_Ios_Openmodei",  # red team 17
                      "_IO_popen", "_IO_fopen", "_IO_fdopen", "setmntent", "forkpty", "remove", "writev",
                      "mkstemp64", "pidfd_getfd", "daemon"):  # red team 29
            self.assertEqual({f.what for f in scan.check_imports([other], [])}, {scan.FILES_AND_PROGRAMS}, other)
        # What nvcc's own code, printf, streams and the runtime's API import in every honest build.
        honest = ["__cudaRegisterFatBinary", "__cudaPushCallConfiguration", "__cudaLaunchKernel", "printf",
                  "__printf_chk", "_ZNSo5writeEPKcl", "_ZNSt3_V215system_categoryEv", "cudaMalloc", "memcpy",
                  "cublasSgemm_v2", "_IO_putc", "_ZSt6removeIPfiET_S1_S1_RKT0_"]
        self.assertEqual(scan.check_imports(honest, []), [])
        # A student's own function called clone is no import, and its name in the source is fair.
        self.assertEqual(names("float* clone(const float* x) { return nullptr; }\n"), [])

    def test_a_declaration_renamed_by_an_asm_label_is_imported_under_its_real_name(self):
        # Red team 16: `void* look_up(void*, const char*) __asm__("dlsym")` hides dlsym from every
        # look at the text (the name is in a string); the library imports dlsym all the same.
        nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
        if not os.access(nvcc, os.X_OK):
            self.skipTest("no nvcc")
        source = ('extern "C" void* look_up(void*, const char*) __asm__("dl" "sym");\n'
                  'extern "C" void* find(const char* name) { return look_up(nullptr, name); }\n')
        self.assertEqual(names(source), [])  # the text shows nothing
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "renamed.cu")
            with open(path, "w") as handle:
                handle.write(source)
            library = os.path.join(work, "librenamed.so")
            subprocess.run([nvcc, "-shared", "-cudart=shared", "-Xcompiler=-fPIC", "-o", library, path], check=True)
            with open(library, "rb") as handle:
                imported = elf.imported_names(handle.read())
        self.assertIn("dlsym", imported)
        self.assertNotIn("look_up", imported)
        self.assertEqual([(f.what, f.name) for f in scan.check_imports(imported, [])],
                         [(scan.FILES_AND_PROGRAMS, "dlsym")])


class HostAssembly(unittest.TestCase):
    """Assembly in host code (nvcc's <file>.cudafe1.cpp), where it makes system calls no name shows."""
    SOURCE = "/stage/ab12/vector_add.cu"

    def test_assembly_in_host_code_is_found_and_inline_ptx_in_device_code_is_not(self):
        host_code = "\n".join([
            f'# 1 "{self.SOURCE}"', "static long raw(long n) {", 'long r; __asm__ volatile("syscall" : "=a"(r) : "a"(n));',
            "return r; }", "__attribute__((device)) unsigned lane() {int volatile ___ = 1; ::exit(___);}", "#if 0",
            "# 5", '{ unsigned id; asm("mov.u32 %0, %%laneid;" : "=r"(id)); return id; }', "#endif",
            '# 1 "/usr/include/x86_64-linux-gnu/sys/cdefs.h" 1 3', 'extern int open(const char*) __asm__("open64");',
            f'# 9 "{self.SOURCE}" 2', 'void f() { printf("asm is a word in a message"); }', ""])
        self.assertEqual([(f.what, f.name, f.line) for f in scan.check_host_assembly(host_code, self.SOURCE)],
                         [(scan.HOST_ASSEMBLY, "__asm__", 2)])

    def test_a_pragma_on_the_same_line_hides_nothing_and_an_empty_template_is_no_instruction(self):
        # Red team 17: _Pragma("x '") printed on the asm's line; a lone quote blanked the rest.
        host_code = "\n".join([f'# 1 "{self.SOURCE}"', "#pragma x '", "# 1", 'long r; __asm__ volatile("syscall");',
                                f'# 1 "{self.SOURCE}"', 'void barrier() { asm volatile("" ::: "memory"); }',
                                'void other() { __asm__ __volatile__ ( "" "" ); }', ""])
        self.assertEqual([(f.name, f.line) for f in scan.check_host_assembly(host_code, self.SOURCE)],
                         [("__asm__", 1)])

    def test_the_shipped_files_and_fair_files_have_no_host_assembly(self):
        nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
        if not os.access(nvcc, os.X_OK):
            self.skipTest("no nvcc")
        source = helpers.SOURCE_DIR
        files = sorted(glob.glob(os.path.join(source, "solutions", "*", "*.cu")) +
                       glob.glob(os.path.join(source, "grader", "corpus", "red-team", "**", "lab?", "*fair*", "*.cu"),
                                 recursive=True))
        files.append(os.path.join(source, "grader", "corpus", "red-team", "round16", "lab1",
                                  "02-trick_raw_syscalls_in_host_asm", "vector_add.cu"))
        files.append(os.path.join(source, "grader", "corpus", "red-team", "round17", "lab1",
                                  "01-trick_pragma_quote_hides_host_asm", "vector_add.cu"))
        found = {}
        with tempfile.TemporaryDirectory() as work:
            for path in files:
                lab = re.search(r"[/_]lab([0-9])[/_]", path).group(1)
                lab_dir = glob.glob(os.path.join(source, "labs", f"lab{lab}_*"))[0]
                keep = os.path.join(work, str(len(found)))
                os.makedirs(keep)
                subprocess.run([nvcc, "-c", "-O3", "-std=c++17", "-arch=sm_90", f"-I{lab_dir}",
                                f"-I{os.path.join(source, 'common')}", "-keep", "-keep-dir", keep, path,
                                "-o", os.path.join(keep, "x.o")], check=True, capture_output=True)
                host = glob.glob(os.path.join(keep, "*.cudafe1.cpp"))
                self.assertEqual(len(host), 1, path)
                with open(host[0], encoding="utf-8", errors="replace") as handle:
                    found[os.path.basename(os.path.dirname(path))] = scan.check_host_assembly(handle.read(), path)
        # (Round 17's fair file 04 holds empty asm statements, compiler barriers: fair.)
        self.assertEqual({name for name, findings in found.items() if findings},
                         {"02-trick_raw_syscalls_in_host_asm", "01-trick_pragma_quote_hides_host_asm"})


class Dependencies(unittest.TestCase):
    def test_read_dependencies_joins_continued_lines(self):
        text = "lib.so : /a/x.cu \\\n    /usr/include/stdio.h /with\\ space.h\n"
        self.assertEqual(scan.read_dependencies(text), ["/a/x.cu", "/usr/include/stdio.h", "/with space.h"])

    def test_only_the_labs_headers_may_come_from_the_course(self):
        course = helpers.SOURCE_DIR
        allowed = os.path.join(course, "common", "memlab", "cuda_check.cuh")
        other = os.path.join(course, "common", "memlab", "grading", "speed.hpp")
        found = scan.check_dependencies(
            ["/stage/x.cu", allowed, other, "/usr/include/stdio.h", "/usr/local/cuda/include/cub/cub.cuh"],
            source="/stage/x.cu", allowed_headers=[allowed], private_dirs=[course], forbidden_libraries=ALL)
        self.assertEqual([(f.what, f.name) for f in found], [(scan.OTHER_FILES, other),
                                                             ("CUB", "/usr/local/cuda/include/cub/cub.cuh")])


if __name__ == "__main__":
    unittest.main()
