"""The grading kit: nvcc flags from CMake's architectures, and the compile command."""
import os
import tempfile
import unittest

import helpers  # noqa: F401
from memlab_grader.kit import (Kit, architecture_flags, copy_unless_same, device_code_of,
                               host_code_of, keep_folder, preprocessed_of, take_kept_files)


class Kits(unittest.TestCase):
    def test_architectures_as_cmake_means_them(self):
        self.assertEqual(architecture_flags("80-real;90"), [
            "--generate-code=arch=compute_80,code=[sm_80]",
            "--generate-code=arch=compute_90,code=[compute_90,sm_90]"])
        self.assertEqual(architecture_flags("90-virtual"), ["--generate-code=arch=compute_90,code=[compute_90]"])
        self.assertEqual(architecture_flags("native"), ["-arch=native"])

    def test_one_compiler_call_builds_the_library_from_the_file_and_the_table(self):
        kit = Kit(lab="lab1", version="0", source_dir="/src", lab_dir="/src/labs/lab1_caching", skeleton="vector_add.cu",
                  reference_source="", grader="g", runner="u", reference="r", table_objects=["/b/table.o"], compiler="nvcc",
                  compile_flags=["-O3"], architectures="90-real", include_dirs=["/src/common"],
                  link_flags=["-shared"], forbid=[], points="")
        self.assertEqual(kit.compile_command("/s/x.cu", "/s/lib.so", "/s/d.d"), [
            "nvcc", "-O3", "--generate-code=arch=compute_90,code=[sm_90]", "-I/src/common", "-shared",
            "-MD", "-MF", "/s/d.d", "-keep", "-keep-dir", "/s/lib.so.keep", "-o", "/s/lib.so", "/s/x.cu", "/b/table.o"])

    def test_what_the_checks_read_of_nvccs_files_is_taken_and_the_rest_removed(self):
        with tempfile.TemporaryDirectory() as stage:
            library = os.path.join(stage, "liblab1_student.so")
            os.makedirs(keep_folder(library))
            for name in ("vector_add.fatbin", "vector_add.cpp1.ii", "vector_add.cpp4.ii",
                         "vector_add.compute_75.cudafe1.cpp", "vector_add.compute_75.cudafe1.c",
                         "liblab1_student_dlink.fatbin"):
                with open(os.path.join(keep_folder(library), name), "w") as handle:
                    handle.write(name)
            self.assertTrue(take_kept_files(os.path.join(stage, "vector_add.cu"), library))
            with open(device_code_of(library)) as handle:
                self.assertEqual(handle.read(), "vector_add.fatbin")  # the file's, not the link's
            with open(preprocessed_of(library)) as handle:
                self.assertEqual(handle.read(), "vector_add.cpp4.ii")  # the host side's (cpp1 is a GPU's)
            with open(host_code_of(library)) as handle:
                self.assertEqual(handle.read(), "vector_add.compute_75.cudafe1.cpp")  # the host's (.c: a GPU's)
            self.assertEqual(sorted(os.listdir(stage)),
                             ["liblab1_student.fatbin", "liblab1_student.host.cpp", "liblab1_student.ii"])
            self.assertFalse(take_kept_files(os.path.join(stage, "vector_add.cu"), library))  # nothing kept
            os.makedirs(keep_folder(library))
            with open(os.path.join(keep_folder(library), "vector_add.fatbin"), "w") as handle:
                handle.write("only the device code")
            self.assertFalse(take_kept_files(os.path.join(stage, "vector_add.cu"), library))  # both or it fails

    def test_a_kit_snapshot_taken_from_its_own_folder_copies_nothing_onto_itself(self):
        with tempfile.TemporaryDirectory() as folder:
            grader = os.path.join(folder, "lab1_grader")
            open(grader, "w").write("the grader")
            copy_unless_same(grader, grader)  # red team 13: shutil.SameFileError before
            self.assertEqual(open(grader).read(), "the grader")


if __name__ == "__main__":
    unittest.main()
