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
#include <memory>
#include <set>
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
// with @p extra_env added, and returns what it printed.
Finished run(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env) {
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

// The operations of one line of instructions: each statement's first word,
// after any predicate ("@!P0 BRA"; "@%p1 bra.uni") and any braces of an inline
// assembly block. PTX written in inline assembly may hold several statements
// on one line ("mov.b64 %fd1, %fd2; add.f64 %fd1, %fd1, %fd3;").
void add_operations(const std::string& line, std::vector<std::string>& into) {
  std::size_t at = 0;
  while (at < line.size()) {
    std::size_t end = line.find(';', at);
    if (end == std::string::npos) end = line.size();
    std::istringstream words(line.substr(at, end - at));
    std::string word;
    while (words >> word && (word == "{" || word == "}")) {
    }
    while (!word.empty() && word.front() == '{') word.erase(0, 1);
    // A label ("$Lsum:") may start a statement; the operation follows it (red team 14).
    while (!word.empty() && word.back() == ':') {
      if (!(words >> word)) word.clear();
    }
    if (!word.empty() && word[0] == '@') words >> word;
    while (!word.empty() && (word.back() == ',' || word.back() == '}')) word.pop_back();
    if (!word.empty()) into.push_back(word);
    at = end + 1;
  }
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The function a PTX call names ("call.uni (retval0), _Z4wideff, (param0);" gives
// "_Z4wideff"), or "" for a call through a register ("call %rd4, ...").
std::string callee_of(const std::string& line) {
  std::size_t at = line.find("call");
  if (at == std::string::npos) return "";
  at = line.find_first_of(" \t", at);
  while (at != std::string::npos && at < line.size()) {
    at = line.find_first_not_of(" \t,", at);
    if (at == std::string::npos) return "";
    if (line[at] == '(') {  // the return values
      at = line.find(')', at);
      if (at == std::string::npos) return "";
      ++at;
      continue;
    }
    std::size_t end = at;
    while (end < line.size() && line[end] != ',' && line[end] != ';' && line[end] != ' ' && line[end] != '\t') ++end;
    const std::string name = line.substr(at, end - at);
    return name.empty() || name[0] == '%' ? "" : name;
  }
  return "";
}

// The name after ".entry" or ".func" (and a ".func"'s return parameter list) on @p line, or "".
std::string function_opened(const std::string& line) {
  for (const char* keyword : {".entry", ".func"}) {
    std::size_t at = line.find(keyword);
    if (at == std::string::npos) continue;
    at += std::strlen(keyword);
    if (at < line.size() && line[at] != ' ' && line[at] != '\t') continue;  // ".function_x" is not it
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
    if (at < line.size() && line[at] == '(') {  // .func (.param .b32 func_retval0) name(
      const std::size_t close = line.find(')', at);
      if (close == std::string::npos) return "";
      at = close + 1;
      while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
    }
    std::size_t end = at;
    while (end < line.size() && line[end] != '(' && line[end] != ' ' && line[end] != '\t' && line[end] != ';') ++end;
    return line.substr(at, end - at);
  }
  return "";
}

bool any_operation(const KernelCode& kernel, bool (*is)(const std::string&)) {
  return std::any_of(kernel.operations.begin(), kernel.operations.end(), is);
}

// The first part of a SASS operation ("LDS" of "LDS.U.128").
std::string base_of(const std::string& operation) { return operation.substr(0, operation.find('.')); }

bool in(const std::string& word, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(), [&](const char* w) { return word == w; });
}

// A PTX operation on the .shared state space that moves data: not an address
// conversion (cvta.to.shared), a test (isspacep.shared) or a declaration.
bool ptx_moves_shared(const std::string& operation, bool loads) {
  if (operation.find(".shared") == std::string::npos) return false;
  const std::string first = operation.substr(0, operation.find('.'));
  if (in(first, {"atom", "red"})) return true;  // read, modify, write
  if (loads) return in(first, {"ld", "ldmatrix", "ldu"});
  return in(first, {"st", "stmatrix", "cp"});  // cp.async[.bulk] into shared memory
}

// A PTX load from a generic address: "ld" with no state space (".global",
// ".shared", ".local", ".param", ".const"): "ld.f32", "ld.volatile.u64".
bool ptx_loads_generic(const std::string& operation) {
  if (operation.substr(0, operation.find('.')) != "ld") return false;
  for (const char* space : {".global", ".shared", ".local", ".param", ".const"}) {
    if (operation.find(space) != std::string::npos) return false;
  }
  return true;
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
    const std::size_t sm = line.rfind(".sm_");
    if (sm == std::string::npos) continue;
    std::size_t end = sm + 4;
    while (end < line.size() && is_digit(line[end])) ++end;
    if (end == sm + 4 || end - sm - 4 > 4) continue;
    (elf ? list.machine_code : list.ptx).push_back(std::stoi(line.substr(sm + 4, end - sm - 4)));
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
  std::vector<KernelCode> kernels;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const std::size_t function = line.find("Function : ");
    if (function != std::string::npos) {
      kernels.push_back({first_word(line.substr(function + 11)), {}, false});
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
    add_operations(line.substr(close + 2, end - close - 2), kernels.back().operations);
  }
  return kernels;
}

std::vector<KernelCode> parse_ptx(const std::string& text) {
  // ".visible .entry _ZN...(" opens a kernel and ".func (...) _Z...(" a device
  // function the compiler kept apart; each body is "{ ... }". A kernel is
  // given the operations of every function it calls, directly or not: what a
  // kernel does must not depend on whether the compiler (or the student's
  // __noinline__) kept a helper apart (red team 13).
  struct Function {
    KernelCode code;
    bool entry = false;
    std::vector<std::string> calls;  // names; "" for a call through a pointer (any function)
  };
  std::vector<Function> functions;
  std::string call;  // a call statement read so far
  int depth = 0;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const std::size_t comment = line.find("//");
    if (comment != std::string::npos) line.erase(comment);
    if (depth == 0) {
      const std::string name = function_opened(line);
      if (!name.empty()) functions.push_back({{name, {}, true}, line.find(".entry") != std::string::npos, {}});
    }
    const int depth_before = depth;
    for (char c : line) {
      if (c == '{') ++depth;
      if (c == '}') depth = std::max(0, depth - 1);
    }
    if (functions.empty() || (depth_before == 0 && depth == 0)) continue;
    if (!call.empty()) {  // a call's statement goes on to its ';' ("call.uni (retval0),\n_Z4wide..., \n(...);")
      call += " " + line;
      if (line.find(';') == std::string::npos) continue;
      functions.back().calls.push_back(callee_of(call));
      call.clear();
      continue;
    }
    // Declarations (".reg", ".shared ...") are kept too, as operations starting with '.'.
    std::vector<std::string>& operations = functions.back().code.operations;
    const std::size_t before = operations.size();
    add_operations(line, operations);
    for (std::size_t i = before; i < operations.size(); ++i) {
      if (operations[i] != "call" && !starts_with(operations[i], "call.")) continue;
      call = line.substr(line.find("call"));
      if (call.find(';') != std::string::npos) {
        functions.back().calls.push_back(callee_of(call));
        call.clear();
      }
      break;
    }
  }
  // A function is declared ahead of its callers (".func ... name;") and defined
  // later, both under its name: each is taken once, the body from the definition.
  std::vector<KernelCode> kernels;
  for (const Function& function : functions) {
    if (!function.entry) continue;
    KernelCode kernel = function.code;
    std::set<const Function*> folded;
    std::vector<const Function*> pending{&function};
    while (!pending.empty()) {
      const Function* caller = pending.back();
      pending.pop_back();
      for (const std::string& callee : caller->calls) {
        for (const Function& other : functions) {  // a call through a pointer may reach any function
          if (other.entry || (!callee.empty() && other.code.name != callee) || !folded.insert(&other).second) {
            continue;
          }
          kernel.operations.insert(kernel.operations.end(), other.code.operations.begin(), other.code.operations.end());
          pending.push_back(&other);
        }
      }
    }
    kernels.push_back(std::move(kernel));
  }
  return kernels;
}

bool uses_shared_memory(const KernelCode& kernel) {
  // Staging data means writing it there and reading it back: a lone store or a
  // lone load (a flag) is not it. What was written may be read back through a
  // generic address (a pointer to the tile or to global memory, chosen at run
  // time: red team 13's fair file), which the code cannot tell from a global
  // read; such a load counts. (A dead kernel meets the check anyway: it covers
  // the whole build, grader/README.md.)
  if (kernel.from_ptx) {
    return any_operation(kernel, [](const std::string& op) { return ptx_moves_shared(op, true) || ptx_loads_generic(op); }) &&
           any_operation(kernel, [](const std::string& op) { return ptx_moves_shared(op, false); });
  }
  return any_operation(kernel, [](const std::string& op) { return in(base_of(op), {"LDS", "LDSM", "ATOMS", "LD"}); }) &&
         any_operation(kernel, [](const std::string& op) {
           return in(base_of(op), {"STS", "STSM", "ATOMS", "LDGSTS", "UBLKCP", "UTMALDG"});
         });
}

bool computes_on_floats_in_double(const KernelCode& kernel) {
  // Adding up in double takes an addition (a fused one counts). Products alone
  // add nothing up, and CUDA's own float functions (sinf, tanf, j0f, ...)
  // multiply in double to reduce large arguments (red team 13).
  // So do the other units that add in double: the tensor cores' DMMA, and any
  // addition that memory does (atomicAdd on a double, the bulk copy unit's
  // reductions: RED, ATOM, UBLKRED ... .ADD.F64) (red team 14). A division or a
  // square root in double is a chain of DFMAs in machine code: PTX's div, rcp
  // and sqrt .f64 count too, so that every GPU reads a file alike (red team 15).
  const bool arithmetic = any_operation(kernel, kernel.from_ptx ? +[](const std::string& op) {
    const std::string first = op.substr(0, op.find('.'));
    return op.find(".f64") != std::string::npos &&
           (in(first, {"add", "sub", "fma", "mad", "mma", "wmma", "div", "rcp", "sqrt"}) ||
            op.find(".add") != std::string::npos);
  } : +[](const std::string& op) {
    return in(base_of(op), {"DADD", "DFMA", "DMMA"}) ||
           (op.find(".F64") != std::string::npos && op.find(".ADD") != std::string::npos);
  });
  const bool widens = any_operation(kernel, kernel.from_ptx ? +[](const std::string& op) {
    return starts_with(op, "cvt.") && op.find(".f64.f32") != std::string::npos;
  } : +[](const std::string& op) { return starts_with(op, "F2F.F64.F32"); });
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

std::vector<KernelCode> read_kernels(const std::string& cuobjdump, const std::string& nvdisasm_dir,
                                     const std::string& library, int capability, const std::string& reference) {
  if (cuobjdump.empty() || ::access(cuobjdump.c_str(), X_OK) != 0) {
    throw MachineCodeUnreadable("cuobjdump (part of the CUDA toolkit, beside nvcc) is not installed here" +
                                (cuobjdump.empty() ? std::string() : " (" + cuobjdump + ")"));
  }
  std::vector<std::string> env;
  if (!nvdisasm_dir.empty()) env.push_back("NVDISASM_PATH=" + nvdisasm_dir);
  const auto list = [&](const std::string& path) {
    const Finished listed = run({cuobjdump, "-lelf", "-lptx", path}, env);
    if (listed.status != 0) throw MachineCodeUnreadable("cuobjdump could not list " + path + ": " + tail(listed.output));
    return parse_code_list(listed.output);
  };
  const CodeList codes = list(library);
  const Code code = code_for(codes, capability);
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
  const std::string arch = "sm_" + std::to_string(code.arch);  // cuobjdump's -arch names PTX this way too
  const Finished read = run({cuobjdump, code.ptx ? "-ptx" : "-sass", "-arch", arch, library}, env);
  if (read.status != 0) throw MachineCodeUnreadable("cuobjdump could not read " + library + ": " + tail(read.output));
  return code.ptx ? parse_ptx(read.output) : parse_sass(read.output);
}

}  // namespace memlab::grading
