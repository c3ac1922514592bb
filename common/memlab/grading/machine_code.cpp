// Reading a build's kernels with cuobjdump: see machine_code.hpp.
#include "memlab/grading/machine_code.hpp"

#include <cxxabi.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <initializer_list>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>

extern char** environ;

namespace memlab::grading {

namespace {

// A student's build is small, but its unrolled loops may take many megabytes
// of listing; past these limits cuobjdump is not waited for.
constexpr double kSecondsPerRun = 120.0;
constexpr std::size_t kMostOutput = std::size_t{256} << 20;

struct Finished {
  int status = -1;  // exit status, or -1 when it did not exit on its own
  std::string output;  // stdout and stderr together
};

// Runs @p argv (no shell: the library's path is one word whatever it holds)
// with @p extra_env added, in @p folder ("": this process's), and returns what
// it printed.
Finished run(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
             const std::string& folder = "") {
  std::vector<std::string> env_text;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const std::string name = text.substr(0, text.find('='));
    const bool replaced = std::any_of(extra_env.begin(), extra_env.end(), [&](const std::string& e) {
      return e.compare(0, name.size() + 1, name + "=") == 0;
    });
    if (!replaced) env_text.push_back(text);
  }
  env_text.insert(env_text.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> args, env;
  for (const auto& word : argv) args.push_back(const_cast<char*>(word.c_str()));
  args.push_back(nullptr);
  for (const auto& entry : env_text) env.push_back(const_cast<char*>(entry.c_str()));
  env.push_back(nullptr);

  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw MachineCodeUnreadable(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    throw MachineCodeUnreadable(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(pipe_fds[1], 1);
    ::dup2(pipe_fds[1], 2);
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
    if (!folder.empty() && ::chdir(folder.c_str()) != 0) {
      std::fprintf(stderr, "cannot enter %s: %s\n", folder.c_str(), std::strerror(errno));
      std::_Exit(127);
    }
    ::execve(args[0], args.data(), env.data());
    std::fprintf(stderr, "cannot start %s: %s\n", args[0], std::strerror(errno));
    std::_Exit(127);
  }
  ::setpgid(pid, pid);
  ::close(pipe_fds[1]);

  Finished finished;
  bool cut_short = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(kSecondsPerRun);
  char buffer[1 << 16];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || finished.output.size() > kMostOutput) {
      cut_short = true;
      break;
    }
    pollfd wait_for{pipe_fds[0], POLLIN, 0};
    const int ready = ::poll(&wait_for, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t got = ::read(pipe_fds[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    finished.output.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(pipe_fds[0]);
  if (cut_short) ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (cut_short) {
    throw MachineCodeUnreadable(finished.output.size() > kMostOutput ? argv[0] + " printed too much"
                                                                      : argv[0] + " took too long");
  }
  finished.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return finished;
}

// "3 files", for a message.
std::string files_text(int files) { return std::to_string(files) + (files == 1 ? " file" : " files"); }

// The end of what a tool printed, for a message.
std::string tail(const std::string& text, std::size_t most = 600) {
  return text.size() <= most ? text : "..." + text.substr(text.size() - most);
}

bool starts_with(const std::string& text, const std::string& prefix) { return text.compare(0, prefix.size(), prefix) == 0; }

std::string first_word(const std::string& text) {
  std::istringstream words(text);
  std::string word;
  words >> word;
  return word;
}

// The operation of one machine instruction ("@!P0 LDS.128 R4, [R3+0x40]" gives
// "LDS.128"): its first word, after the brace of a dual-issued pair and any
// predicate.
std::string operation_of(const std::string& instruction) {
  std::istringstream words(instruction);
  std::string word;
  while (words >> word && word == "{") {
  }
  if (!word.empty() && word.front() == '{') word.erase(0, 1);
  if (!word.empty() && word.front() == '@') words >> word;
  return word;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The architecture of a code file as cuobjdump names it ("matmul.sm_90.ptx",
// "lab4_api.sm_90a.cubin": 90), or 0.
int arch_of_file_name(const std::string& name) {
  const std::size_t sm = name.rfind(".sm_");
  if (sm == std::string::npos) return 0;
  std::size_t end = sm + 4;
  while (end < name.size() && is_digit(name[end])) ++end;
  if (end == sm + 4 || end - sm - 4 > 4) return 0;
  return std::stoi(name.substr(sm + 4, end - sm - 4));
}

bool any_operation(const KernelCode& kernel, bool (*is)(const std::string&)) {
  return std::any_of(kernel.operations.begin(), kernel.operations.end(), is);
}

// The first part of a SASS operation ("LDS" of "LDS.U.128").
std::string base_of(const std::string& operation) { return operation.substr(0, operation.find('.')); }

bool in(const std::string& word, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(), [&](const char* w) { return word == w; });
}

// The parameter list of a demangled kernel name ("(float const*, float*, unsigned long)"), or "".
std::string parameters_of(const std::string& readable) {
  if (readable.empty() || readable.back() != ')') return "";
  int depth = 0;
  for (std::size_t i = readable.size(); i-- > 0;) {
    if (readable[i] == ')') ++depth;
    if (readable[i] == '(' && --depth == 0) return readable.substr(i);
  }
  return "";
}

}  // namespace

CodeList parse_code_list(const std::string& listing) {
  // "ELF file    1: lab4_api.sm_75.cubin", "PTX file    2: matmul.sm_90.ptx" (sm_90a: 90).
  CodeList list;
  std::istringstream lines(listing);
  std::string line;
  while (std::getline(lines, line)) {
    const bool elf = starts_with(line, "ELF file"), ptx = starts_with(line, "PTX file");
    const std::string suffix = elf ? ".cubin" : ".ptx";
    if (!(elf || ptx) || line.size() < suffix.size() || line.compare(line.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    const int arch = arch_of_file_name(line);
    if (arch != 0) (elf ? list.machine_code : list.ptx).push_back(arch);
  }
  std::sort(list.machine_code.begin(), list.machine_code.end());
  std::sort(list.ptx.begin(), list.ptx.end());
  return list;
}

std::string Code::name() const { return (ptx ? "compute_" : "sm_") + std::to_string(arch); }

Code code_for(const CodeList& list, int capability) {
  Code best;
  for (int arch : list.machine_code) {
    if (arch / 10 == capability / 10 && arch <= capability) best.arch = std::max(best.arch, arch);
  }
  if (best) return best;
  best.ptx = true;
  for (int arch : list.ptx) {
    if (arch <= capability) best.arch = std::max(best.arch, arch);
  }
  return best;
}

int files_of(const CodeList& list, Code code) {
  const std::vector<int>& files = code.ptx ? list.ptx : list.machine_code;
  return static_cast<int>(std::count(files.begin(), files.end(), code.arch));
}

std::vector<KernelCode> parse_sass(const std::string& text) {
  // "        Function : _ZN...", then instructions "        /*0080*/   @P0 LDS.128 R4, [R3] ;  /* 0x... */".
  // -res-usage lists each ELF file's kernels before its code: " Function _ZN...:", then
  // "  REG:32 STACK:0 SHARED:3072 LOCAL:0 ...".
  std::vector<KernelCode> kernels;
  std::map<std::string, std::uint32_t> static_shared;
  std::string resources_of;  // the kernel whose resources the next line lists
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const std::size_t function = line.find("Function : ");
    if (function != std::string::npos) {
      kernels.push_back({first_word(line.substr(function + 11)), {}});
      continue;
    }
    const std::size_t usage = line.find("Function ");
    if (usage != std::string::npos && line.back() == ':') {
      resources_of = first_word(line.substr(usage + 9));
      resources_of.pop_back();  // the ':'
      continue;
    }
    const std::size_t shared = line.find(" SHARED:");
    if (!resources_of.empty() && shared != std::string::npos) {
      const unsigned long bytes = std::strtoul(line.c_str() + shared + 8, nullptr, 10);
      std::uint32_t& most = static_shared[resources_of];
      most = std::max(most, static_cast<std::uint32_t>(std::min<unsigned long>(bytes, UINT32_MAX)));
      resources_of.clear();
      continue;
    }
    // "/*" four or more hex digits "*/", then the instruction up to ';'.
    const std::size_t open = line.find_first_not_of(" \t");
    if (kernels.empty() || open == std::string::npos || line.compare(open, 2, "/*") != 0) continue;
    const std::size_t close = line.find("*/", open + 2);
    if (close == std::string::npos || close - open - 2 < 4 ||
        line.find_first_not_of("0123456789abcdef", open + 2) != close) {
      continue;
    }
    const std::size_t end = line.find(';', close);
    if (end == std::string::npos) continue;
    const std::string operation = operation_of(line.substr(close + 2, end - close - 2));
    if (!operation.empty()) kernels.back().operations.push_back(operation);
  }
  for (KernelCode& kernel : kernels) {
    const auto listed = static_shared.find(kernel.name);
    if (listed != static_shared.end()) kernel.static_shared_bytes = listed->second;
  }
  return kernels;
}

bool uses_shared_memory(const KernelCode& kernel) {
  // Staging data means writing it there and reading it back: a lone store or a
  // lone load (a flag) is not it. What was written may be read back through a
  // generic address (a pointer to the tile or to global memory, chosen at run
  // time: red team 13's fair file), which the code cannot tell from a global
  // read; such a load counts. (Which kernels a function launches is the
  // runner's launch watch's to say: launch_watch.hpp.)
  return any_operation(kernel, [](const std::string& op) { return in(base_of(op), {"LDS", "LDSM", "ATOMS", "LD"}); }) &&
         any_operation(kernel, [](const std::string& op) {
           return in(base_of(op), {"STS", "STSM", "ATOMS", "LDGSTS", "UBLKCP", "UTMALDG"});
         });
}

bool adds_in_double(const KernelCode& kernel) {
  // Adding up in double takes an addition (a fused one counts; a division or a
  // square root in double is a chain of DFMAs). Products alone add nothing up,
  // and CUDA's own float functions (sinf, tanf, j0f, ...) multiply in double to
  // reduce large arguments (red team 13). So do the other units that add in
  // double: the tensor cores' DMMA, and any addition that memory does
  // (atomicAdd on a double, the bulk copy unit's reductions: RED, ATOM,
  // UBLKRED ... .ADD.F64) (red team 14).
  return any_operation(kernel, [](const std::string& op) {
    return in(base_of(op), {"DADD", "DFMA", "DMMA"}) ||
           (op.find(".F64") != std::string::npos && op.find(".ADD") != std::string::npos);
  });
}

namespace {

bool widens_floats(const KernelCode& kernel) {
  return any_operation(kernel, [](const std::string& op) { return starts_with(op, "F2F.F64.F32"); });
}

// The tensor memory accelerator's reductions (UTMAREDG ... .ADD) carry their type in the
// tensor map, not in the instruction: one in a kernel that widens floats may add them up in
// double (red team 16).
bool reduces_widened_floats(const KernelCode& kernel) {
  const bool untyped_reduction = any_operation(kernel, [](const std::string& op) {
    return in(base_of(op), {"UTMAREDG", "UBLKRED"}) && op.find(".ADD") != std::string::npos &&
           op.find(".F") == std::string::npos;
  });
  return untyped_reduction && widens_floats(kernel);
}

}  // namespace

bool may_add_in_double(const KernelCode& kernel) { return adds_in_double(kernel) || reduces_widened_floats(kernel); }

bool computes_on_floats_in_double(const KernelCode& kernel) {
  const bool arithmetic = adds_in_double(kernel);
  const bool widens = widens_floats(kernel);
  if (reduces_widened_floats(kernel)) return true;
  const std::string parameters = parameters_of(readable_name(kernel.name));
  // A name without a signature (extern "C") could hide float parameters: its
  // kernel is taken as one of float data (red team 13: widened without F2F).
  if (parameters.empty()) return arithmetic;
  const bool takes_float = parameters.find("float") != std::string::npos;
  const bool takes_double = parameters.find("double") != std::string::npos;
  // Arithmetic in double belongs to kernels of double data only; and a kernel
  // given both floats and doubles converts one into the other.
  return (arithmetic && (takes_float || !takes_double)) || (takes_float && takes_double) || (arithmetic && widens);
}

std::string readable_name(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                              std::free);
  return status == 0 && name ? std::string(name.get()) : mangled;
}

std::string BuildCode::description() const {
  if (!code.ptx) return "its " + code.name() + " machine code";
  return "its " + code.name() + " PTX, compiled for sm_" + std::to_string(machine) + " with ptxas";
}

namespace {

// A folder of this process's own for the files of one reading, removed with it.
class ScratchFolder {
 public:
  ScratchFolder() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/memlab-code-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw MachineCodeUnreadable("cannot make a folder for the build's PTX (" + pattern + "): " + std::strerror(errno));
    }
    path_ = pattern;
  }
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void require_tool(const std::string& path, const std::string& what) {
  if (path.empty() || ::access(path.c_str(), X_OK) != 0) {
    throw MachineCodeUnreadable(what + " (part of the CUDA toolkit, beside nvcc) is not installed here" +
                                (path.empty() ? std::string() : " (" + path + ")"));
  }
}

}  // namespace

BuildCode read_kernels(const CodeTools& tools, const std::string& library, int capability, const std::string& reference) {
  require_tool(tools.cuobjdump, "cuobjdump");
  std::vector<std::string> env;
  if (!tools.nvdisasm_dir.empty()) env.push_back("NVDISASM_PATH=" + tools.nvdisasm_dir);
  const auto list = [&](const std::string& path) {
    const Finished listed = run({tools.cuobjdump, "-lelf", "-lptx", path}, env);
    if (listed.status != 0) throw MachineCodeUnreadable("cuobjdump could not list " + path + ": " + tail(listed.output));
    return parse_code_list(listed.output);
  };
  const CodeList codes = list(library);
  BuildCode build;
  build.code = code_for(codes, capability);
  const Code& code = build.code;
  if (!code) {
    throw MachineCodeUnreadable("the build holds no code for compute capability " + std::to_string(capability / 10) +
                                "." + std::to_string(capability % 10));
  }
  if (!reference.empty()) {
    // Compiled the same way from one file each, with the same table, the two
    // builds hold as many files of each code. One more is code the compiler
    // did not put there (bytes placed in the library by hand), which
    // cuobjdump would read beside, or instead of, what the GPU runs.
    const int mine = files_of(codes, code), theirs = files_of(list(reference), code);
    if (mine != theirs) {
      throw MachineCodeUnreadable("the build holds " + files_text(mine) + " of " + code.name() + " code where the reference "
                                  "build, compiled the same way, holds " + std::to_string(theirs) +
                                  ": code the compiler did not put there");
    }
  }
  const auto read_machine_code = [&](const std::vector<std::string>& what) {
    std::vector<std::string> argv{tools.cuobjdump, "-sass", "-res-usage"};
    argv.insert(argv.end(), what.begin(), what.end());
    const Finished read = run(argv, env);
    if (read.status != 0) throw MachineCodeUnreadable("cuobjdump could not read " + what.back() + ": " + tail(read.output));
    std::vector<KernelCode> kernels = parse_sass(read.output);
    build.kernels.insert(build.kernels.end(), std::make_move_iterator(kernels.begin()),
                         std::make_move_iterator(kernels.end()));
  };
  build.machine = code.arch;
  if (!code.ptx) {
    read_machine_code({"-arch", code.name(), library});
    return build;
  }

  // PTX: the machine code ptxas makes of it, as the driver would when loading it.
  require_tool(tools.ptxas, "ptxas");
  const ScratchFolder scratch;
  const std::string whole_path = std::filesystem::absolute(library).string();
  const Finished extracted = run({tools.cuobjdump, "-xptx", "all", whole_path}, env, scratch.path());
  if (extracted.status != 0) {
    throw MachineCodeUnreadable("cuobjdump could not extract the PTX of " + library + ": " + tail(extracted.output));
  }
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(scratch.path())) {
    if (arch_of_file_name(entry.path().filename().string()) == code.arch) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  if (static_cast<int>(files.size()) != files_of(codes, code)) {
    throw MachineCodeUnreadable("cuobjdump extracted " + files_text(static_cast<int>(files.size())) + " of " + code.name() +
                                " PTX from a build that lists " + files_text(files_of(codes, code)));
  }
  build.machine = capability;
  for (const std::string& ptx : files) {
    const std::string cubin = ptx + ".cubin";
    const auto compile = [&](int arch) {
      return run({tools.ptxas, "-arch=sm_" + std::to_string(arch), "-m64", ptx, "-o", cubin}, {});
    };
    Finished compiled = compile(build.machine);
    if (compiled.status != 0 && build.machine != code.arch && compiled.output.find("gpu-name") != std::string::npos) {
      build.machine = code.arch;  // a GPU newer than this ptxas: the PTX's own architecture
      compiled = compile(build.machine);
    }
    if (compiled.status != 0) {
      throw MachineCodeUnreadable("ptxas could not compile the build's " + code.name() + " PTX for sm_" +
                                  std::to_string(build.machine) + ": " + tail(compiled.output));
    }
    read_machine_code({cubin});
  }
  return build;
}

}  // namespace memlab::grading
