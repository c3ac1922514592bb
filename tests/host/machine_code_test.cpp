// Reading kernels from cuobjdump's listings (machine_code.hpp), on listings
// written as cuobjdump 13 prints them. machine_code_builds.cpp reads the
// labs' own builds with the real tools, PTX compiled by ptxas included.
#include "memlab/grading/machine_code.hpp"

#include "memlab/grading/catch2.hpp"

using namespace memlab::grading;

namespace {

const char* const kListing =
    "ELF file    1: lab4_api.sm_75.cubin\n"
    "ELF file    2: lab4_api.sm_86.cubin\n"
    "PTX file    1: lab4_api.sm_90.ptx\n"
    "ELF file    3: lab4_api.sm_90.cubin\n"
    "ELF file    4: matmul.sm_75.cubin\n"
    "ELF file    5: matmul.sm_86.cubin\n"
    "PTX file    2: matmul.sm_90.ptx\n"
    "ELF file    6: matmul.sm_90.cubin\n";

const char* const kSass =
    "\tcode for sm_90\n"
    "\t\tFunction : _ZN4lab419matmul_tiled_kernelEPKfS1_Pfi\n"
    "\t.headerflags\t@\"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"\n"
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;                 /* 0x00000a00ff017b82 */\n"
    "                                                                          /* 0x000fe20000000800 */\n"
    "        /*0090*/               @P0 EXIT ;                                 /* 0x000000000000094d */\n"
    "        /*00a0*/                   STS [R6], R9 ;                         /* 0x0000000906007388 */\n"
    "        /*00b0*/              @!P1 LDS.128 R12, [R3+0x40] ;               /* 0x0000400003107984 */\n"
    "\t\tFunction : _ZN4lab419matmul_naive_kernelEPKfS1_Pfi\n"
    "        /*0000*/                   LDG.E R4, desc[UR4][R2.64] ;           /* 0x0000000402047981 */\n"
    "        /*0010*/                   FFMA R5, R4, R7, R5 ;                  /* 0x0000000704057223 */\n"
    "        /*0020*/                   F2F.F64.F32 R8, R5 ;                   /* 0x0000000500087310 */\n"
    "        /*0030*/                   EXIT ;                                 /* 0x000000000000794d */\n";

}  // namespace

TEST_CASE("the code a GPU runs is chosen as the driver chooses it") {
  const CodeList list = parse_code_list(kListing);
  // One entry per file: a build of two source files holds two of each.
  CHECK(list.machine_code == std::vector<int>{75, 75, 86, 86, 90, 90});
  CHECK(list.ptx == std::vector<int>{90, 90});
  CHECK(files_of(list, Code{false, 90}) == 2);
  CHECK(files_of(list, Code{true, 90}) == 2);
  CHECK(files_of(list, Code{false, 80}) == 0);
  CHECK(code_for(list, 90).name() == "sm_90");
  CHECK(code_for(list, 89).name() == "sm_86");   // machine code of its own major version, no newer minor one
  CHECK_FALSE(code_for(list, 80));               // sm_86 does not run on 8.0, and PTX 9.0 is newer than it
  CHECK(code_for(list, 75).name() == "sm_75");
  CHECK(code_for(list, 100).name() == "compute_90");  // no Blackwell machine code: the driver compiles the PTX
  CHECK(code_for(parse_code_list("ELF file 1: x.sm_90a.cubin\n"), 90).name() == "sm_90");
}

TEST_CASE("machine code is read kernel by kernel, predicates skipped") {
  const std::vector<KernelCode> kernels = parse_sass(kSass);
  REQUIRE(kernels.size() == 2);
  CHECK(kernels[0].name == "_ZN4lab419matmul_tiled_kernelEPKfS1_Pfi");
  CHECK(kernels[0].operations == std::vector<std::string>{"LDC", "EXIT", "STS", "LDS.128"});
  CHECK(kernels[1].operations == std::vector<std::string>{"LDG.E", "FFMA", "F2F.F64.F32", "EXIT"});
  CHECK(uses_shared_memory(kernels[0]));
  CHECK_FALSE(uses_shared_memory(kernels[1]));
  CHECK_FALSE(computes_on_floats_in_double(kernels[0]));
  CHECK_FALSE(computes_on_floats_in_double(kernels[1]));  // a conversion, but no arithmetic in double
}

TEST_CASE("a kernel's static shared memory is read from the resource usage listed before its code") {
  // cuobjdump -sass -res-usage: each ELF file's resources, then its code (as cuobjdump 13 prints them).
  const std::string listing = std::string("Resource usage:\n Common:\n  GLOBAL:0\n"
                                          " Function _Z5fixedILi8EEvPKfPf:\n"
                                          "  REG:12 STACK:0 SHARED:1536 LOCAL:0 CONSTANT[0]:544 TEXTURE:0\n"
                                          " Function _ZN4lab419matmul_tiled_kernelEPKfS1_Pfi:\n"
                                          "  REG:32 STACK:0 SHARED:3072 LOCAL:0 CONSTANT[0]:556 TEXTURE:0\n") +
                              kSass;
  const std::vector<KernelCode> kernels = parse_sass(listing);
  REQUIRE(kernels.size() == 2);
  CHECK(kernels[0].static_shared_bytes == 3072);
  CHECK(kernels[0].operations == std::vector<std::string>{"LDC", "EXIT", "STS", "LDS.128"});
  CHECK(kernels[1].static_shared_bytes == 0);  // not listed: nothing known
  CHECK(parse_sass(kSass)[0].static_shared_bytes == 0);
}

TEST_CASE("shared memory is used when data goes in and comes back out") {
  // LDSM is shared memory (ldmatrix), LDGSTS an asynchronous copy into it; LDL (local) and LDG (global) are not.
  CHECK(uses_shared_memory(KernelCode{"k", {"LDGSTS.E.BYPASS.128", "LDSM.16.M88.4"}}));
  CHECK(uses_shared_memory(KernelCode{"k", {"STS.128", "BAR.SYNC.DEFER_BLOCKING", "LDS.U8"}}));
  CHECK(uses_shared_memory(KernelCode{"k", {"ATOMS.ADD"}}));
  CHECK_FALSE(uses_shared_memory(KernelCode{"k", {"LDL.64", "LDG.E.CONSTANT", "STL", "LDC"}}));
  // A lone store (a flag written, red team 12) or a lone load is not staging data.
  CHECK_FALSE(uses_shared_memory(KernelCode{"k", {"STS", "LDG.E", "FFMA"}}));
  // Read back through a generic address, which may be the tile (red team 13's fair file).
  CHECK(uses_shared_memory(KernelCode{"k", {"STS.64", "LD.E.64", "DFMA"}}));
  CHECK_FALSE(uses_shared_memory(KernelCode{"k", {"LDS", "LDG.E", "FFMA"}}));
}

TEST_CASE("floats computed on in double are told by the kernel's signature and its arithmetic") {
  const auto kernel = [](const char* name, std::vector<std::string> operations) {
    return KernelCode{name, std::move(operations)};
  };
  // lab3::row_sums_kernel(float const*, float*, unsigned long, unsigned long)
  const char* const float_kernel = "_ZN4lab315row_sums_kernelEPKfPfmm";
  // lab3::row_sums_kernel(double const*, double*, unsigned long, unsigned long)
  const char* const double_kernel = "_ZN4lab315row_sums_kernelEPKdPdmm";
  // lab3::widen(float const*, double*, unsigned long)
  const char* const converting_kernel = "_ZN4lab35widenEPKfPdm";
  CHECK_FALSE(computes_on_floats_in_double(kernel(double_kernel, {"LDG.E.64", "DADD", "STG.E.64"})));
  CHECK_FALSE(computes_on_floats_in_double(kernel(float_kernel, {"LDG.E", "FADD", "STG.E"})));
  // Double arithmetic in a float kernel, whatever made the doubles (red team 12: no F2F at all).
  CHECK(computes_on_floats_in_double(kernel(float_kernel, {"LDG.E", "I2F.F64", "DMUL", "DADD", "F2F.F32.F64"})));
  // Floats turned into doubles in one kernel, added in another (red team 12).
  CHECK(computes_on_floats_in_double(kernel(converting_kernel, {"LDG.E", "F2F.F64.F32", "STG.E.64"})));
  // A float converted for printf is not it.
  CHECK_FALSE(computes_on_floats_in_double(kernel(float_kernel, {"F2F.F64.F32", "STL.64", "CALL.ABS.NOINC"})));
  // No signature (extern "C"): taken as float data, however the doubles were made (red team 13).
  CHECK(computes_on_floats_in_double(kernel("row_sums", {"F2F.F64.F32", "DFMA"})));
  CHECK(computes_on_floats_in_double(kernel("row_sums", {"LDG.E", "I2F.F64", "DADD"})));
  CHECK_FALSE(computes_on_floats_in_double(kernel("row_sums", {"LDG.E", "FADD"})));
  // Products in double add nothing up: CUDA's sinf reduces a large argument so (red team 13).
  CHECK_FALSE(computes_on_floats_in_double(kernel(float_kernel, {"I2F.F64.S64", "DMUL", "F2F.F32.F64", "FADD"})));
  // atomicAdd on a double (a __device__ global: no double parameter) adds up in double.
  CHECK(computes_on_floats_in_double(kernel(float_kernel, {"LDG.E", "F2F.F64.F32", "RED.E.ADD.F64.RN.STRONG.GPU"})));
  CHECK(computes_on_floats_in_double(kernel(float_kernel, {"LDG.E", "F2F.F64.F32", "REDG.E.ADD.F64.RN.STRONG.GPU"})));
  // The tensor cores and the bulk copy unit add in double too (red team 14).
  CHECK(computes_on_floats_in_double(kernel(float_kernel, {"LDG.E", "DMMA.8x8x4"})));
  CHECK(computes_on_floats_in_double(kernel(float_kernel, {"UBLKRED.G.S.ADD.F64.RN"})));
  // A tensor map's reduction has no type in the instruction: with floats widened, it may add in double.
  CHECK(computes_on_floats_in_double(kernel(float_kernel, {"F2F.F64.F32", "STS.64", "UTMAREDG.2D.ADD"})));
  CHECK_FALSE(computes_on_floats_in_double(kernel(float_kernel, {"LDG.E", "STS", "UTMAREDG.2D.ADD"})));
  CHECK_FALSE(computes_on_floats_in_double(kernel(float_kernel, {"LDG.E.64", "MOV", "F2F.F32.F64"})));
}

TEST_CASE("adding in double is told by the arithmetic alone, whatever the kernel's data") {
  // What lab 3's step 2 asks of every kernel row_sums_compensated launches (the runner's launch watch).
  const auto kernel = [](std::vector<std::string> operations) { return KernelCode{"k", std::move(operations)}; };
  CHECK(adds_in_double(kernel({"LDG.E.64", "DADD", "STG.E.64"})));
  CHECK(adds_in_double(kernel({"DFMA"})));
  CHECK(adds_in_double(kernel({"DMMA.8x8x4"})));
  CHECK(adds_in_double(kernel({"RED.E.ADD.F64.RN.STRONG.GPU"})));
  CHECK_FALSE(adds_in_double(kernel({"LDG.E", "FADD", "FFMA", "STG.E"})));
  CHECK_FALSE(adds_in_double(kernel({"I2F.F64.S64", "DMUL", "F2F.F32.F64"})));  // sinf's products in double
  // What step 2 asks of those kernels: that, or a reduction typed by its tensor map beside floats
  // widened (red team 16's file 09; red team 23 found the launched kernels' check had lost it).
  CHECK(may_add_in_double(kernel({"DADD"})));
  CHECK(may_add_in_double(kernel({"LDG.E", "F2F.F64.F32", "STS.64", "UTMAREDG.2D.ADD"})));
  CHECK_FALSE(adds_in_double(kernel({"LDG.E", "F2F.F64.F32", "STS.64", "UTMAREDG.2D.ADD"})));
  CHECK_FALSE(may_add_in_double(kernel({"LDG.E", "STS", "UTMAREDG.2D.ADD"})));  // floats reduced as floats
  CHECK_FALSE(may_add_in_double(kernel({"LDG.E", "FADD", "STG.E"})));
}

TEST_CASE("an operation is told by its name, not by a prefix of it") {
  // F2F.F32.F64 narrows; it does not widen.
  CHECK_FALSE(computes_on_floats_in_double(KernelCode{"k", {"F2F.F32.F64", "LDG.E.64", "STG.E"}}));
}

TEST_CASE("a kernel name of any length is read") {
  // A 150,000-character name crashed a regular expression's recursion (red team 12).
  const std::string name = "_Z" + std::to_string(150000) + std::string(150000, 'k') + "v";
  CHECK(parse_sass("\t\tFunction : " + name + "\n        /*0000*/  EXIT ;  /* 0x0 */\n").at(0).name == name);
}

TEST_CASE("kernel names read as the source wrote them") {
  CHECK(readable_name("_ZN4lab419matmul_tiled_kernelEPKfS1_Pfi") ==
        "lab4::matmul_tiled_kernel(float const*, float const*, float*, int)");
  CHECK(readable_name("not a mangled name") == "not a mangled name");
}

TEST_CASE("a build that cannot be read says why") {
  const auto tools = [](const char* cuobjdump) { return CodeTools{cuobjdump, "", ""}; };
  CHECK_THROWS_AS(read_kernels(tools(""), "lib.so", 90), MachineCodeUnreadable);
  CHECK_THROWS_AS(read_kernels(tools("/nonexistent/cuobjdump"), "lib.so", 90), MachineCodeUnreadable);
  // A tool that fails (false exits 1) is a failure to read, never an empty build.
  CHECK_THROWS_AS(read_kernels(tools("/bin/false"), "lib.so", 90), MachineCodeUnreadable);
  // One that lists nothing: no code for this GPU, never "no kernels".
  CHECK_THROWS_AS(read_kernels(tools("/bin/true"), "lib.so", 90), MachineCodeUnreadable);
}

TEST_CASE("where the kernels were read from is said plainly") {
  CHECK(BuildCode{Code{false, 90}, 90, {}}.description() == "its sm_90 machine code");
  CHECK(BuildCode{Code{true, 90}, 100, {}}.description() == "its compute_90 PTX, compiled for sm_100 with ptxas");
}
