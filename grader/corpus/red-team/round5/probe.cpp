// What a runner (sandboxed or not) can see and do with cgroups: run it as the
// runner would be, e.g. `harness sandbox probe` (harness.cpp), or directly
// under the sandbox's bwrap words. Prints one line per question.
//   g++ -std=c++17 -O1 -o /tmp/r5/probe probe.cpp
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

static std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

static std::string line_of(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return line;
  return "";
}

// Depth-first search below @p dir for folders named memlab-*; collects their paths.
static void find_memlab(const std::string& dir, int depth, std::vector<std::string>& out) {
  if (depth > 8) return;
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  while (dirent* e = readdir(d)) {
    if (e->d_type != DT_DIR || e->d_name[0] == '.') continue;
    std::string path = dir + "/" + e->d_name;
    if (std::strncmp(e->d_name, "memlab-", 7) == 0) out.push_back(path);
    find_memlab(path, depth + 1, out);
  }
  closedir(d);
}

static std::string try_write(const std::string& path, const char* text) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return std::string("open: ") + strerror(errno);
  ssize_t n = write(fd, text, strlen(text));
  int e = errno;
  close(fd);
  return n < 0 ? std::string("write: ") + strerror(e) : "WRITTEN";
}

static std::string cgroup_root() {
  for (const char* p : {"/sys/fs/cgroup/unified", "/sys/fs/cgroup"}) {
    if (access((std::string(p) + "/cgroup.procs").c_str(), R_OK) == 0) return p;
  }
  return "";
}

int main() {
  std::printf("uid=%d euid=%d\n", getuid(), geteuid());
  std::printf("uid_map: %s", slurp("/proc/self/uid_map").c_str());
  std::printf("%s\n", line_of(slurp("/proc/self/status"), "CapEff").c_str());
  std::printf("/proc/self/cgroup: %s", line_of(slurp("/proc/self/cgroup"), "0::").c_str());
  std::printf("\n");
  const std::string root = cgroup_root();
  std::printf("cgroup2 visible at: %s\n", root.empty() ? "(none)" : root.c_str());
  if (root.empty()) return 0;
  std::vector<std::string> found;
  find_memlab(root, 0, found);
  std::printf("memlab cgroups visible (%zu):\n", found.size());
  for (const auto& f : found) {
    std::string ev = slurp(f + "/cgroup.events");
    for (char& c : ev) if (c == '\n') c = ' ';
    std::printf("  %s  [%s] cpu %s\n", f.c_str(), ev.c_str(), line_of(slurp(f + "/cpu.stat"), "usage_usec").c_str());
  }
  // Own cgroup and its parent, as found by name.
  std::string own, parent;
  for (const auto& f : found)
    if (f.find("-student-") != std::string::npos) own = f;
  if (!own.empty()) parent = own.substr(0, own.rfind('/'));
  std::printf("own cgroup (by name): %s\n", own.c_str());
  if (!own.empty()) {
    std::printf("write parent cgroup.procs: %s\n", try_write(parent + "/cgroup.procs", "0").c_str());
    std::printf("write own cgroup.freeze=0: %s\n", try_write(own + "/cgroup.freeze", "0").c_str());
    std::printf("mkdir own/sub: %s\n", mkdir((own + "/sub").c_str(), 0755) == 0 ? "MADE" : strerror(errno));
    for (const auto& f : found)
      if (f.find("-reference-") != std::string::npos)
        std::printf("write %s/cgroup.kill: %s\n", f.c_str(), try_write(f + "/cgroup.kill", "1").c_str());
    // clone3(CLONE_INTO_CGROUP) into the parent, with a directory fd of the read-only mount.
    int dirfd = open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
      std::printf("clone3 into parent: open dir: %s\n", strerror(errno));
    } else {
      clone_args args{};
      args.flags = CLONE_INTO_CGROUP;
      args.exit_signal = SIGCHLD;
      args.cgroup = dirfd;
      long pid = syscall(SYS_clone3, &args, sizeof args);
      if (pid == 0) {
        std::string cg = line_of(slurp("/proc/self/cgroup"), "0::");
        std::printf("  clone3 child's /proc/self/cgroup: %s\n", cg.c_str());
        std::fflush(stdout);
        _exit(0);
      }
      if (pid < 0) std::printf("clone3 into parent: %s\n", strerror(errno));
      else {
        waitpid(pid, nullptr, 0);
        std::printf("clone3 into parent: CHILD STARTED\n");
      }
    }
  }
  return 0;
}
