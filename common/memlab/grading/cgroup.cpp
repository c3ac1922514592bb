// Cgroup (cgroup.hpp): a folder of the cgroup v2 file system per runner.
#include "memlab/grading/cgroup.hpp"

#include "memlab/files.hpp"

#include <dirent.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

namespace memlab::grading {

namespace {

using Clock = std::chrono::steady_clock;

// Where the cgroup v2 file system is mounted ("" if it is not), from /proc/self/mountinfo:
// "id parent major:minor root mount-point options ... - type source super-options".
std::string cgroup2_mount() {
  std::ifstream mounts("/proc/self/mountinfo");
  std::string line;
  while (std::getline(mounts, line)) {
    const std::size_t dash = line.find(" - ");
    if (dash == std::string::npos || line.compare(dash + 3, 8, "cgroup2 ") != 0) continue;
    std::istringstream fields(line.substr(0, dash));
    std::string id, parent, device, root, mount_point;
    if (fields >> id >> parent >> device >> root >> mount_point && root == "/") return mount_point;
  }
  return "";
}

// This process's cgroup in the v2 hierarchy ("0::/path" in /proc/self/cgroup).
std::string own_cgroup() {
  std::ifstream groups("/proc/self/cgroup");
  std::string line;
  while (std::getline(groups, line)) {
    if (line.rfind("0::", 0) == 0) return line.substr(3);
  }
  return "";
}

// The folder runners' cgroups are made in: the grader's own cgroup.
std::string parent_folder() {
  static const std::string folder = [] {
    const std::string mount = cgroup2_mount();
    const std::string own = own_cgroup();
    if (mount.empty() || own.empty()) return std::string();
    return own == "/" ? mount : mount + own;
  }();
  return folder;
}

// This grader's prefix of cgroup names: memlab-<PID namespace>-<pid>-. The
// namespace's inode tells graders in different PID namespaces apart, whose
// pids may be equal (each run of a container can be pid 2).
const std::string& own_prefix() {
  static const std::string prefix = [] {
    struct stat namespace_file {};
    const unsigned long long space =
        ::stat("/proc/self/ns/pid", &namespace_file) == 0 ? static_cast<unsigned long long>(namespace_file.st_ino) : 0;
    return "memlab-" + std::to_string(space) + "-" + std::to_string(::getpid()) + "-";
  }();
  return prefix;
}

// Writes @p text into @p file of the cgroup at @p folder.
bool write_to(const std::string& folder, const char* file, const char* text) {
  const int fd = ::open((folder + "/" + file).c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const std::size_t length = std::strlen(text);
  const bool written = ::write(fd, text, length) == static_cast<ssize_t>(length);
  ::close(fd);
  return written;
}

// Whether the cgroup at @p folder's cgroup.events holds @p line ("frozen 1"); false once it is gone.
bool events_say(const std::string& folder, const char* line) {
  const std::string events = "\n" + read_file(folder + "/cgroup.events");
  return events.find("\n" + std::string(line) + "\n") != std::string::npos;
}

bool populated(const std::string& folder) { return events_say(folder, "populated 1"); }

// Kills every process in the cgroup at @p folder and waits up to
// @p patience_seconds until none is left (or the cgroup is gone).
bool kill_and_wait(const std::string& folder, double patience_seconds) {
  const Clock::time_point begin = Clock::now();
  for (int round = 0;; ++round) {
    if (!populated(folder)) return true;
    if (round == 0) write_to(folder, "cgroup.kill", "1");
    if (std::chrono::duration<double>(Clock::now() - begin).count() > patience_seconds) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(round < 10 ? 1 : 10));
  }
}

// Removes @p folder and the cgroups below it, deepest first (a cgroup with
// children cannot be removed), killing what is inside. A runner's cgroup may
// have no children (cgroup.max.depth 0): the depth limit only guards against a
// tree from elsewhere.
void remove_tree(const std::string& folder, int depth = 0) {
  if (depth > 8) return;
  if (DIR* listing = ::opendir(folder.c_str())) {
    std::vector<std::string> children;
    while (const dirent* entry = ::readdir(listing)) {
      if (entry->d_type == DT_DIR && entry->d_name[0] != '.') children.push_back(folder + "/" + entry->d_name);
    }
    ::closedir(listing);
    for (const std::string& child : children) remove_tree(child, depth + 1);
  }
  if (::rmdir(folder.c_str()) == 0 || errno != EBUSY || !populated(folder)) return;
  kill_and_wait(folder, 1.0);
  ::rmdir(folder.c_str());
}

// Removes the cgroups left by graders of this PID namespace that were killed
// before they could: those of a pid no longer running, and this process's own
// (it has made none yet; a pid is reused). Another namespace's are left alone:
// its pids cannot be checked from here.
void remove_stale(const std::string& parent) {
  DIR* folder = ::opendir(parent.c_str());
  if (folder == nullptr) return;
  const std::string& own = own_prefix();
  const std::string space = own.substr(0, own.find('-', std::strlen("memlab-")) + 1);  // "memlab-<namespace>-"
  std::vector<std::string> stale;
  while (const dirent* entry = ::readdir(folder)) {
    const std::string name = entry->d_name;
    if (name.rfind(space, 0) != 0) continue;
    const int pid = std::atoi(name.c_str() + space.size());
    if (pid <= 0) continue;
    if (pid != ::getpid() && (::kill(pid, 0) == 0 || errno == EPERM)) continue;
    stale.push_back(parent + "/" + name);
  }
  ::closedir(folder);
  for (const std::string& cgroup : stale) remove_tree(cgroup);
}

// Whether a process can be moved into the new cgroup @p probe: not so in a
// threaded subtree, for one, where the folder can be made but not entered.
bool can_enter(const std::string& probe) {
  const std::string procs = probe + "/cgroup.procs";
  const pid_t child = ::fork();
  if (child < 0) return false;
  if (child == 0) {
    const int fd = ::open(procs.c_str(), O_WRONLY | O_CLOEXEC);
    std::_Exit(fd >= 0 && ::write(fd, "0", 1) == 1 ? 0 : 1);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

const std::string& Cgroup::why_unusable() {
  static const std::string why = []() -> std::string {
    const std::string parent = parent_folder();
    if (parent.empty()) return "no cgroup v2 file system is mounted here";
    if (::access((parent + "/cgroup.procs").c_str(), W_OK) != 0) {
      return "this process may not move processes between cgroups below " + parent +
             " (run as root, or under `systemd-run --user --scope -p Delegate=yes`)";
    }
    remove_stale(parent);
    const std::string probe = parent + "/" + own_prefix() + "probe";
    if (::mkdir(probe.c_str(), 0755) != 0) {
      return "no cgroup can be made in " + parent + ": " + std::strerror(errno);
    }
    const bool complete = ::access((probe + "/cgroup.freeze").c_str(), W_OK) == 0 &&
                          ::access((probe + "/cgroup.kill").c_str(), W_OK) == 0;
    const bool enters = complete && can_enter(probe);
    remove_tree(probe);
    if (!complete) return "this kernel's cgroups have no cgroup.freeze or cgroup.kill (Linux 5.14 or later has both)";
    if (!enters) return "a process cannot be moved into a cgroup made in " + parent + " (a threaded cgroup?)";
    return "";
  }();
  return why;
}

Cgroup::Cgroup(const std::string& name) {
  if (!why_unusable().empty()) return;
  const std::string folder = parent_folder() + "/" + own_prefix() + name;
  bool made = ::mkdir(folder.c_str(), 0755) == 0;
  if (!made && errno == EEXIST) {
    remove_tree(folder);  // left by an earlier process of this pid
    made = ::mkdir(folder.c_str(), 0755) == 0;
  }
  if (!made) {
    // Not the student's doing, so not a failed check: this runner is held by
    // signals, and the log says so (the report's "Runners held by" is not true of it).
    std::fprintf(stderr, "grading: cannot make the runner's cgroup %s (%s); this runner is held by signals\n",
                 folder.c_str(), std::strerror(errno));
    return;
  }
  folder_ = folder;
  procs_ = folder + "/cgroup.procs";
  // No cgroups below a runner's: nothing the runner makes can outlast it or
  // slow its removal (it could make some only where it can mount cgroupfs).
  write_to(folder_, "cgroup.max.depth", "0");
  write_to(folder_, "cgroup.max.descendants", "0");
}

Cgroup::Cgroup(Cgroup&& other) noexcept
    : folder_(std::exchange(other.folder_, std::string())), procs_(std::exchange(other.procs_, std::string())) {}

Cgroup& Cgroup::operator=(Cgroup&& other) noexcept {
  if (this != &other) {
    remove();
    folder_ = std::exchange(other.folder_, std::string());
    procs_ = std::exchange(other.procs_, std::string());
  }
  return *this;
}

Cgroup::~Cgroup() { remove(); }

void Cgroup::remove() {
  if (!usable()) return;
  remove_tree(folder_);  // what is left inside is killed; a left-over is removed by a later grader
  folder_.clear();
  procs_.clear();
}

bool Cgroup::enter() const noexcept {
  const int procs = ::open(procs_.c_str(), O_WRONLY | O_CLOEXEC);
  if (procs < 0) return false;
  const bool moved = ::write(procs, "0", 1) == 1;  // 0: the writing process
  ::close(procs);
  return moved;
}

bool Cgroup::freeze(double patience_seconds) {
  if (!write_to(folder_, "cgroup.freeze", "1")) return false;
  const Clock::time_point begin = Clock::now();
  for (int round = 0;; ++round) {
    if (events_say(folder_, "frozen 1")) return true;
    if (std::chrono::duration<double>(Clock::now() - begin).count() > patience_seconds) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(round < 10 ? 20 : 200));
  }
}

bool Cgroup::frozen() const { return usable() && events_say(folder_, "frozen 1"); }

void Cgroup::thaw() { write_to(folder_, "cgroup.freeze", "0"); }

bool Cgroup::kill_all(double patience_seconds) { return !usable() || kill_and_wait(folder_, patience_seconds); }

}  // namespace memlab::grading
