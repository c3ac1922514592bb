// Round 5 rerun: tries to reach a cgroup file system again from inside the
// fixed sandbox (sandbox.py's bwrap_words with --disable-userns and a tmpfs
// over every cgroup mount), and, where a nested user namespace is still
// possible (bubblewrap older than 0.8, or --no-sandbox), builds a cgroup
// chain deeper than PATH_MAX below the runner's own cgroup.
//   g++ -std=c++17 -O1 -o /tmp/r5/probe2 probe2.cpp
//   probe2 reach     every way tried to a cgroup folder, from the sandbox
//   probe2 deep N    a new user+mount+cgroup namespace, cgroup2 mounted at /tmp/cg
//                    (or, without the sandbox, the runner's own cgroup folder),
//                    then N nested folders "d" made with mkdir+chdir; then ticks
//   probe2 dsleep MB a fair stand-in for a thread in uninterruptible sleep: it writes MB MiB
//                    to /var/tmp and fsyncs, in a loop (D state in writeback); main ticks
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC 0x27e0eb
#endif

static std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

static bool is_cgroupfs(int fd) {
  struct statfs st;
  return fstatfs(fd, &st) == 0 && (st.f_type == CGROUP2_SUPER_MAGIC || st.f_type == CGROUP_SUPER_MAGIC);
}

static const char* what(int rc) { return rc == 0 ? "ALLOWED" : strerror(errno); }

// Opens @p path; says whether it is a folder of a cgroup file system.
static void try_path(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    std::printf("  %-48s %s\n", path.c_str(), strerror(errno));
    return;
  }
  std::printf("  %-48s opened, %s\n", path.c_str(), is_cgroupfs(fd) ? "CGROUP FILE SYSTEM" : "not cgroupfs");
  close(fd);
}

static void reach() {
  std::printf("uid %d, /proc/self/cgroup: %s", getuid(), slurp("/proc/self/cgroup").c_str());
  std::printf("NoNewPrivs/CapEff: %s",
              [] {
                std::string s = slurp("/proc/self/status"), out;
                std::istringstream in(s);
                std::string l;
                while (std::getline(in, l))
                  if (l.rfind("NoNewPrivs", 0) == 0 || l.rfind("CapEff", 0) == 0 || l.rfind("CapBnd", 0) == 0)
                    out += l + "  ";
                return out + "\n";
              }()
                  .c_str());
  // 1. Mount points of cgroup file systems still listed in mountinfo (they lie under the tmpfs).
  std::printf("1. cgroup mounts listed in /proc/self/mountinfo, and what their paths open:\n");
  std::istringstream mounts(slurp("/proc/self/mountinfo"));
  std::string line;
  std::vector<std::string> points;
  while (std::getline(mounts, line)) {
    const std::size_t dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    if (line.compare(dash + 3, 7, "cgroup ") != 0 && line.compare(dash + 3, 8, "cgroup2 ") != 0) continue;
    std::istringstream f(line.substr(0, dash));
    std::string id, parent, dev, root, point;
    f >> id >> parent >> dev >> root >> point;
    points.push_back(point);
  }
  std::printf("  %zu listed\n", points.size());
  for (const auto& p : points) try_path(p);
  // 2. The same through /proc/<pid>/root and /proc/<pid>/cwd of every process seen.
  std::printf("2. /proc/<pid>/root/<mount point> and every fd of every process seen:\n");
  int found = 0, fds = 0;
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      const std::string pid = e->d_name;
      std::string comm = slurp("/proc/" + pid + "/comm");
      if (!comm.empty()) comm.pop_back();
      std::printf("  pid %s (%s)\n", pid.c_str(), comm.c_str());
      for (const auto& p : points) {
        const int fd = open(("/proc/" + pid + "/root" + p).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0 && is_cgroupfs(fd)) { std::printf("  CGROUP via /proc/%s/root%s\n", pid.c_str(), p.c_str()); ++found; }
        if (fd >= 0) close(fd);
      }
      if (DIR* fdd = opendir(("/proc/" + pid + "/fd").c_str())) {
        while (dirent* f = readdir(fdd)) {
          if (f->d_name[0] == '.') continue;
          ++fds;
          char target[512] = {};
          readlink(("/proc/" + pid + "/fd/" + f->d_name).c_str(), target, sizeof target - 1);
          const int fd = open(("/proc/" + pid + "/fd/" + f->d_name).c_str(), O_PATH | O_CLOEXEC);
          const bool cg = fd >= 0 && is_cgroupfs(fd);
          if (fd >= 0) close(fd);
          std::printf("    fd %s -> %s%s\n", f->d_name, target, cg ? "  CGROUP FILE SYSTEM" : "");
          found += cg;
        }
        closedir(fdd);
      } else {
        std::printf("    fds: %s\n", strerror(errno));
      }
    }
    closedir(d);
  }
  std::printf("  %d fds looked at, %d cgroup handles found\n", fds, found);
  // 3. Namespaces and mounts that would give a cgroup file system again.
  std::printf("3. namespaces and mounts (each in a child):\n");
  struct Try { const char* name; int flags; };
  for (Try t : {Try{"unshare(CLONE_NEWCGROUP)", CLONE_NEWCGROUP}, Try{"unshare(CLONE_NEWNS)", CLONE_NEWNS},
                Try{"unshare(CLONE_NEWUSER)", CLONE_NEWUSER},
                Try{"unshare(CLONE_NEWUSER|CLONE_NEWNS|CLONE_NEWCGROUP)", CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWCGROUP}}) {
    std::fflush(stdout);
    const pid_t c = fork();
    if (c == 0) {
      const int rc = unshare(t.flags);
      std::printf("  %-52s %s\n", t.name, what(rc));
      std::fflush(stdout);
      _exit(0);
    }
    waitpid(c, nullptr, 0);
  }
  {
    struct clone_args args = {};
    args.flags = CLONE_NEWUSER;
    args.exit_signal = SIGCHLD;
    std::fflush(stdout);
    const long c = syscall(SYS_clone3, &args, sizeof args);
    if (c == 0) _exit(0);
    std::printf("  %-52s %s\n", "clone3(CLONE_NEWUSER)", c > 0 ? "ALLOWED" : strerror(errno));
    if (c > 0) waitpid(c, nullptr, 0);
  }
  for (const char* ns : {"/proc/1/ns/cgroup", "/proc/1/ns/user", "/proc/1/ns/mnt"}) {
    const int fd = open(ns, O_RDONLY | O_CLOEXEC);
    std::printf("  setns(%s) %s\n", ns, fd < 0 ? strerror(errno) : what(setns(fd, 0)));
    if (fd >= 0) close(fd);
  }
  mkdir("/tmp/cg", 0755);
  std::printf("  mount(cgroup2, /tmp/cg): %s\n", what(mount("none", "/tmp/cg", "cgroup2", 0, nullptr)));
  std::printf("  mount(cgroup freezer v1, /tmp/cg): %s\n", what(mount("none", "/tmp/cg", "cgroup", 0, "freezer")));
  const long fs = syscall(SYS_fsopen, "cgroup2", 0);
  std::printf("  fsopen(cgroup2): %s\n", fs >= 0 ? "ALLOWED" : strerror(errno));
  for (const auto& p : points.empty() ? std::vector<std::string>{"/sys/fs/cgroup"} : std::vector<std::string>{points[0]}) {
    std::printf("  umount2(%s, MNT_DETACH): %s\n", "/sys/fs/cgroup", what(umount2("/sys/fs/cgroup", MNT_DETACH)));
    (void)p;
  }
  const long tree = syscall(SYS_open_tree, AT_FDCWD, "/sys/fs/cgroup", 1 /*OPEN_TREE_CLONE*/ | O_CLOEXEC);
  std::printf("  open_tree(/sys/fs/cgroup, CLONE): %s\n", tree >= 0 ? "ALLOWED" : strerror(errno));
  std::printf("  /proc/sys/user/max_user_namespaces = %s", slurp("/proc/sys/user/max_user_namespaces").c_str());
  {
    const int fd = open("/proc/sys/user/max_user_namespaces", O_WRONLY | O_CLOEXEC);
    std::printf("  write 100 into it: %s\n", fd < 0 ? strerror(errno) : (write(fd, "100", 3) == 3 ? "WRITTEN" : strerror(errno)));
  }
  // 4. clone3(CLONE_INTO_CGROUP) with a folder of the covering tmpfs.
  {
    const int dir = open("/sys/fs/cgroup", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct clone_args args = {};
    args.flags = CLONE_INTO_CGROUP;
    args.exit_signal = SIGCHLD;
    args.cgroup = static_cast<unsigned>(dir);
    std::fflush(stdout);
    const long c = syscall(SYS_clone3, &args, sizeof args);
    if (c == 0) _exit(0);
    std::printf("4. clone3(CLONE_INTO_CGROUP, fd of /sys/fs/cgroup as seen): %s\n", c > 0 ? "ALLOWED" : strerror(errno));
    if (c > 0) waitpid(c, nullptr, 0);
  }
  // 5. What else under /sys names cgroups.
  std::printf("5. /sys/fs: ");
  if (DIR* d = opendir("/sys/fs")) {
    while (dirent* e = readdir(d)) std::printf("%s ", e->d_name);
    closedir(d);
  }
  std::printf("\n   /sys/fs/cgroup: ");
  if (DIR* d = opendir("/sys/fs/cgroup")) {
    while (dirent* e = readdir(d)) std::printf("%s ", e->d_name);
    closedir(d);
  }
  std::printf("\n");
}

[[noreturn]] static void tick_forever() {
  for (;;) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1);
    while (std::chrono::steady_clock::now() < until) {
    }
    if (write(3, "t", 1) < 0 && errno == EPIPE) _exit(0);
  }
}

static void deep(int levels) {
  std::string top;
  const std::string own = slurp("/proc/self/cgroup");
  const std::string rel = own.substr(own.find("0::") + 3, own.find('\n', own.find("0::")) - own.find("0::") - 3);
  if (access("/sys/fs/cgroup/unified/cgroup.procs", W_OK) == 0 && rel != "/") {
    top = "/sys/fs/cgroup/unified" + rel;  // no sandbox: the runner's own cgroup, writable as root
  } else {
    const uid_t uid = getuid();
    const gid_t gid = getgid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWCGROUP) != 0) {
      std::printf("[probe2] unshare(user|mount|cgroup): %s\n", strerror(errno));
      std::fflush(stdout);
      tick_forever();
    }
    std::ofstream("/proc/self/setgroups") << "deny";
    std::ofstream("/proc/self/uid_map") << "0 " << uid << " 1";
    std::ofstream("/proc/self/gid_map") << "0 " << gid << " 1";
    mkdir("/tmp/cg", 0755);
    if (mount("none", "/tmp/cg", "cgroup2", 0, nullptr) != 0) {
      std::printf("[probe2] mount cgroup2: %s\n", strerror(errno));
      std::fflush(stdout);
      tick_forever();
    }
    top = "/tmp/cg";
  }
  if (chdir(top.c_str()) != 0) std::printf("[probe2] chdir %s: %s\n", top.c_str(), strerror(errno));
  int made = 0;
  for (; made < levels; ++made)
    if (mkdir("d", 0755) != 0 || chdir("d") != 0) break;
  std::printf("[probe2] %d nested cgroups made below %s (%s)\n", made, top.c_str(), made < levels ? strerror(errno) : "all");
  std::fflush(stdout);
  tick_forever();
}

static void dsleep(int mib) {
  std::thread([mib] {
    std::vector<char> block(1 << 20, 'x');
    const std::string path = "/var/tmp/r5-dsleep-" + std::to_string(getpid());
    for (;;) {
      const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      unlink(path.c_str());
      for (int i = 0; i < mib; ++i)
        if (write(fd, block.data(), block.size()) < 0) break;
      fsync(fd);
      close(fd);
    }
  }).detach();
  tick_forever();
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "reach";
  if (mode == "dsleep") dsleep(argc > 2 ? std::atoi(argv[2]) : 512);
  if (mode == "deep") deep(argc > 2 ? std::atoi(argv[2]) : 3000);
  reach();
  return 0;
}
