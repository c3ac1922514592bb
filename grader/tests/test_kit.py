"""The grading kit: nvcc flags from CMake's architectures, and the compile command."""
import unittest

import helpers  # noqa: F401
from memlab_grader.kit import Kit, architecture_flags


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
            "-MD", "-MF", "/s/d.d", "-o", "/s/lib.so", "/s/x.cu", "/b/table.o"])


if __name__ == "__main__":
    unittest.main()
