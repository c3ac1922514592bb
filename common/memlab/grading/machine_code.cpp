// Reading a build's kernels with cuobjdump: see machine_code.hpp.
#include "memlab/grading/machine_code.hpp"

#include <cxxabi.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <regex>
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

// The operation of one instruction's text, after any predicate ("@!P0 BRA"; "@%p1 bra.uni").
std::string operation_of(const std::string& instruction) {
  std::istringstream words(instruction);
  std::string word;
  words >> word;
  if (!word.empty() && word[0] == '@') words >> word;
  while (!word.empty() && (word.back() == ';' || word.back() == ',')) word.pop_back();
  return word;
}

}  // namespace

CodeList parse_code_list(const std::string& listing) {
  CodeList list;
  static const std::regex entry(R"((ELF|PTX) file\s+\d+:.*\.sm_(\d+)[a-z]?\.(cubin|ptx))");
  std::istringstream lines(listing);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch match;
    if (!std::regex_search(line, match, entry)) continue;
    std::vector<int>& into = match[1] == "ELF" ? list.machine_code : list.ptx;
    const int arch = std::stoi(match[2]);
    if (std::find(into.begin(), into.end(), arch) == into.end()) into.push_back(arch);
  }
  return list;
}

std::string code_for(const CodeList& list, int capability) {
  int best = -1;
  for (int arch : list.machine_code) {
    if (arch / 10 == capability / 10 && arch <= capability) best = std::max(best, arch);
  }
  if (best >= 0) return "sm_" + std::to_string(best);
  for (int arch : list.ptx) {
    if (arch <= capability) best = std::max(best, arch);
  }
  return best >= 0 ? "compute_" + std::to_string(best) : "";
}

std::vector<KernelCode> parse_sass(const std::string& text) {
  // "        Function : _ZN...", then instructions "        /*0080*/   @P0 LDS.128 R4, [R3] ;  /* 0x... */".
  std::vector<KernelCode> kernels;
  static const std::regex instruction(R"(^\s*/\*[0-9a-f]{4,}\*/\s+([^;]*);)");
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const std::size_t function = line.find("Function : ");
    if (function != std::string::npos) {
      kernels.push_back({first_word(line.substr(function + 11)), {}, false});
      continue;
    }
    std::smatch match;
    if (!kernels.empty() && std::regex_search(line, match, instruction)) {
      const std::string operation = operation_of(match[1]);
      if (!operation.empty()) kernels.back().operations.push_back(operation);
    }
  }
  return kernels;
}

std::vector<KernelCode> parse_ptx(const std::string& text) {
  // ".visible .entry _ZN...(" opens a kernel and ".func (...) _Z...(" a device
  // function the compiler kept apart; each body is "{ ... }".
  std::vector<KernelCode> kernels;
  int depth = 0;
  static const std::regex opening(R"(\.(entry|func)\s+(?:\([^)]*\)\s*)?([A-Za-z0-9_$.]+))");
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const std::size_t comment = line.find("//");
    if (comment != std::string::npos) line.erase(comment);
    std::smatch match;
    if (depth == 0 && std::regex_search(line, match, opening)) kernels.push_back({match[2], {}, true});
    const int depth_before = depth;
    for (char c : line) {
      if (c == '{') ++depth;
      if (c == '}') --depth;
    }
    if (kernels.empty() || depth_before == 0 || depth == 0) continue;
    std::string statement = line;
    statement.erase(0, statement.find_first_not_of(" \t"));
    if (statement.empty() || statement[0] == '{' || statement[0] == '}' || statement.back() == ':') continue;
    // Declarations (".reg", ".shared ...") are kept too: a .shared array in a kernel is its shared memory.
    const std::string operation = operation_of(statement);
    if (!operation.empty()) kernels.back().operations.push_back(operation);
  }
  return kernels;
}

bool uses_shared_memory(const KernelCode& kernel) {
  static const std::vector<std::string> kShared = {"LDS", "STS", "LDSM", "STSM", "ATOMS", "LDGSTS",
                                                   "UBLKCP", "UTMALDG", "UTMASTG", "UTMAREDG", "UBLKRED"};
  return std::any_of(kernel.operations.begin(), kernel.operations.end(), [&](const std::string& operation) {
    if (kernel.from_ptx) return operation.find(".shared") != std::string::npos;
    const std::string base = operation.substr(0, operation.find('.'));
    return std::find(kShared.begin(), kShared.end(), base) != kShared.end();
  });
}

bool computes_on_floats_in_double(const KernelCode& kernel) {
  const auto any = [&](auto&& is) { return std::any_of(kernel.operations.begin(), kernel.operations.end(), is); };
  if (kernel.from_ptx) {
    static const std::regex arithmetic(R"((add|sub|mul|fma|mad)(\.[a-z]+)*\.f64)");
    return any([](const std::string& op) { return starts_with(op, "cvt.") && op.find(".f64.f32") != std::string::npos; }) &&
           any([](const std::string& op) { return std::regex_match(op, arithmetic); });
  }
  return any([](const std::string& op) { return starts_with(op, "F2F.F64.F32"); }) &&
         any([](const std::string& op) {
           const std::string base = op.substr(0, op.find('.'));
           return base == "DADD" || base == "DFMA" || base == "DMUL";
         });
}

std::string readable_name(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                              std::free);
  return status == 0 && name ? std::string(name.get()) : mangled;
}

std::vector<KernelCode> read_kernels(const std::string& cuobjdump, const std::string& nvdisasm_dir,
                                     const std::string& library, int capability) {
  if (cuobjdump.empty() || ::access(cuobjdump.c_str(), X_OK) != 0) {
    throw MachineCodeUnreadable("cuobjdump (part of the CUDA toolkit, beside nvcc) is not installed here" +
                                (cuobjdump.empty() ? std::string() : " (" + cuobjdump + ")"));
  }
  std::vector<std::string> env;
  if (!nvdisasm_dir.empty()) env.push_back("NVDISASM_PATH=" + nvdisasm_dir);
  const Finished listed = run({cuobjdump, "-lelf", "-lptx", library}, env);
  if (listed.status != 0) throw MachineCodeUnreadable("cuobjdump could not list " + library + ": " + tail(listed.output));
  const std::string code = code_for(parse_code_list(listed.output), capability);
  if (code.empty()) {
    throw MachineCodeUnreadable("the build holds no code for compute capability " + std::to_string(capability / 10) +
                                "." + std::to_string(capability % 10));
  }
  const bool ptx = starts_with(code, "compute_");
  const std::string arch = "sm_" + code.substr(code.find('_') + 1);
  const Finished read = run({cuobjdump, ptx ? "-ptx" : "-sass", "-arch", arch, library}, env);
  if (read.status != 0) throw MachineCodeUnreadable("cuobjdump could not read " + library + ": " + tail(read.output));
  return ptx ? parse_ptx(read.output) : parse_sass(read.output);
}

}  // namespace memlab::grading
