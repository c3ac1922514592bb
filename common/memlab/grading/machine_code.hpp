/// @file machine_code.hpp
/// @brief What a build's kernels are made of, read from the code the GPU runs.
///
/// Some methods a lab teaches leave no trace in results or times on every GPU:
/// on an H100 a naive multiply is only 1.5x slower than a tiled one, x read
/// through L1 is as fast as x staged in shared memory, and float sums kept in
/// double are as fast as float ones and more accurate. The instructions say
/// what neither can: a kernel that stages data in shared memory has shared
/// loads and stores, and one that adds floats up in double converts them.
///
/// The grader reads the student's build with NVIDIA's `cuobjdump` (it comes
/// with nvcc) in its own process, never in the student's, and always reads
/// machine code: the build's own for the GPU it grades on, or, where the build
/// holds only PTX for it (a Blackwell GPU and a build for Turing to Hopper),
/// the machine code `ptxas` makes of that PTX for the GPU, as the driver does
/// when it loads it. One reader for every GPU: PTX text is not read, so a
/// spelling that ptxas accepts cannot mislead it (red team 15). What this sees
/// is the code nvcc compiled from the student's file; what a process loads at
/// run time is out of its view (grader/README.md, "What the grader cannot see").
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace memlab::grading {

/// One kernel as the GPU would run it: its name as compiled (mangled), the
/// operation of each machine instruction, modifiers included ("LDS.128",
/// "F2F.F64.F32"), and its static shared memory. The device functions a kernel
/// calls are part of its code (nvcc compiles each kernel with the functions it
/// calls).
struct KernelCode {
  std::string name;                     ///< e.g. "_ZN4lab419matmul_tiled_kernelEPKfS1_Pfi"
  std::vector<std::string> operations;  ///< one per instruction, in order
  /// The shared memory the kernel holds whatever its launch asks for: its
  /// `__shared__` arrays of fixed size, plus what the GPU reserves in every
  /// block (1 KB from sm_80 on). cuobjdump's "SHARED" (`-res-usage`).
  std::uint32_t static_shared_bytes = 0;
};

/// The codes a build holds, as `cuobjdump -lelf -lptx` lists them: the
/// architecture (e.g. 90 for sm_90) of each file of machine code and of PTX,
/// sorted; a build of two source files holds two of each.
struct CodeList {
  std::vector<int> machine_code;  ///< one per file of machine code (cubin)
  std::vector<int> ptx;           ///< one per file of PTX
};

/// Parses the listing of `cuobjdump -lelf -lptx`.
CodeList parse_code_list(const std::string& listing);

/// One code a build may hold: machine code or PTX for one architecture.
struct Code {
  bool ptx = false;  ///< PTX, which the driver compiles when it loads it, rather than machine code
  int arch = 0;      ///< e.g. 90; 0: no code
  /// Whether there is a code.
  explicit operator bool() const { return arch != 0; }
  /// "sm_90" or "compute_90".
  std::string name() const;
};

/// Which code a GPU of compute capability @p capability (major * 10 + minor)
/// runs from @p list, as the driver picks it: machine code of its own major
/// version and no newer minor one (sm_86 on an 8.9 GPU), the newest such;
/// else the newest PTX no newer than the GPU, compiled when loaded
/// (compute_90); no code when neither would run there.
Code code_for(const CodeList& list, int capability);

/// How many files of @p code @p list holds.
int files_of(const CodeList& list, Code code);

/// The kernels in the output of `cuobjdump -sass -res-usage` (one
/// architecture's): their instructions, and their static shared memory where
/// the listing gives it.
std::vector<KernelCode> parse_sass(const std::string& text);

/// Whether @p kernel stages data in shared memory: it both writes there (STS,
/// STSM, LDGSTS, the tensor memory accelerator's copies) and reads from there
/// (LDS, LDSM, or a load from a generic address, LD, which may be the tile),
/// or uses shared atomics. An address conversion is not a use.
bool uses_shared_memory(const KernelCode& kernel);
/// Whether @p kernel adds in double: DADD, DFMA, DMMA, or an addition in double
/// that memory does (atomics, the bulk copy unit's reductions). A product alone
/// adds nothing up, and CUDA's float functions multiply in double.
bool adds_in_double(const KernelCode& kernel);
/// Whether @p kernel adds in double (adds_in_double) or may: it widens floats to
/// double and has a reduction whose type is in a tensor map, not in the
/// instruction (the tensor memory accelerator's UTMAREDG/UBLKRED ... .ADD).
bool may_add_in_double(const KernelCode& kernel);
/// Whether @p kernel adds floats up in double: it adds in double
/// (adds_in_double) and takes float parameters or no double ones
/// (its signature, from its mangled name; a name without one, extern "C", is
/// taken as float data), or it takes both floats and doubles (a conversion).
/// A float converted for printf is not it.
bool computes_on_floats_in_double(const KernelCode& kernel);

/// A kernel's name as people read it ("lab4::matmul_tiled_kernel(float const*, ...)").
std::string readable_name(const std::string& mangled);

/// The build could not be read (a tool missing, failed, or timed out).
class MachineCodeUnreadable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The CUDA toolkit's tools that read a build (cmake/MachineCodeTools.cmake).
struct CodeTools {
  std::string cuobjdump;     ///< lists and reads a build; "" when not installed
  std::string nvdisasm_dir;  ///< the folder of the nvdisasm cuobjdump calls; "" for the one beside it
  std::string ptxas;         ///< compiles a build's PTX for a GPU it holds no machine code for
};

/// The kernels a GPU runs from a build, and where they were read from.
struct BuildCode {
  Code code;         ///< the build's code that the GPU runs (machine code, or PTX)
  int machine = 0;   ///< the machine code read: code.arch, or what ptxas compiled PTX for (90 for sm_90)
  std::vector<KernelCode> kernels;  ///< its kernels, each with the functions it calls
  /// "its sm_90 machine code", or "its compute_90 PTX, compiled for sm_100 with ptxas".
  std::string description() const;
};

/// The kernels of @p library that a GPU of compute capability @p capability
/// runs, as machine code. From PTX, ptxas compiles for the GPU, or for the
/// PTX's own architecture where this ptxas does not know the GPU (the kinds of
/// instruction the checks look for are the same). With a @p reference build
/// compiled by the very same command (nvcc's link and CMake's host link put
/// different numbers of files in a library), the library must hold as many
/// files of that code as the reference does: more is code placed in it by
/// hand. Throws MachineCodeUnreadable.
BuildCode read_kernels(const CodeTools& tools, const std::string& library, int capability,
                       const std::string& reference = "");

}  // namespace memlab::grading
