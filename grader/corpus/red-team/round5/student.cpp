// The "student's runner" for harness.cpp: arbitrary code with the runner's
// rights, sandboxed or not. Every process that ticks writes one byte a
// millisecond into fd 3 (the harness counts them), so anything that runs
// while the cgroup is frozen shows. Modes:
//   tick          control: the runner ticks, nothing else
//   escape_procs  a child writes its pid into the parent cgroup's cgroup.procs, then ticks
//   clone_into    clone3(CLONE_INTO_CGROUP) with a fd of the parent cgroup's folder; the child ticks
//   clone_into_ref  the same into the reference's runner's cgroup: the child runs when the reference runs
//   kill_ref      during its "call", writes 1 into the reference's cgroup.kill, then ticks
//   thaw_ref      during its "call", writes 0 into the reference's cgroup.freeze, then ticks
//   nested        a new user+mount+cgroup namespace, mounts cgroup2 (its own cgroup as root),
//                 makes sub-cgroups (and N more: `nested N`), moves itself into one, then ticks
//   kernel_busy   a thread loops in long system calls (mmap MAP_POPULATE 1 GiB, munmap); main ticks
//   fair_waits    threads blocked in poll, read(pipe), futex, nanosleep, a vfork parent; main ticks
//   slow_exit N G N processes, each mapping the same G GiB memfd 4 times, all touched: exit takes long
//   self_thaw     a thread writes 0 into its own cgroup.freeze in a loop (no-sandbox)
//   g++ -std=c++17 -O1 -o /tmp/r5/student student.cpp -lpthread
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/sched.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

static std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

static void say(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::printf("[student %d] ", getpid());
  std::vprintf(fmt, ap);
  std::printf("\n");
  std::fflush(stdout);
  va_end(ap);
}

[[noreturn]] static void tick_forever() {
  for (;;) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1);
    while (std::chrono::steady_clock::now() < until) {
    }
    if (write(3, "t", 1) < 0 && errno == EPIPE) _exit(0);
  }
}

static std::string write_text(const std::string& path, const char* text) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return std::string("open: ") + strerror(errno);
  ssize_t n = write(fd, text, strlen(text));
  int e = errno;
  close(fd);
  return n < 0 ? std::string("write: ") + strerror(e) : "WRITTEN";
}

// The cgroup2 mount and this runner's cgroup folder: from /proc/self/cgroup
// without a cgroup namespace, else by searching for memlab-*-student-*.
static std::string mount_point() {
  for (const char* p : {"/sys/fs/cgroup/unified", "/sys/fs/cgroup"})
    if (access((std::string(p) + "/cgroup.procs").c_str(), R_OK) == 0) return p;
  return "";
}
static void find_named(const std::string& dir, const char* part, int depth, std::string& out) {
  if (depth > 8 || !out.empty()) return;
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  while (dirent* e = readdir(d)) {
    if (e->d_type != DT_DIR || e->d_name[0] == '.') continue;
    std::string path = dir + "/" + e->d_name;
    if (std::strncmp(e->d_name, "memlab-", 7) == 0 && std::strstr(e->d_name, part)) { out = path; break; }
    find_named(path, part, depth + 1, out);
  }
  closedir(d);
}
static std::string own_folder() {
  std::string mine = slurp("/proc/self/cgroup");
  const std::size_t at = mine.find("0::");
  std::string rel = mine.substr(at + 3);
  rel = rel.substr(0, rel.find('\n'));
  if (rel != "/") return mount_point() + rel;
  std::string found;
  find_named(mount_point(), "-student-", 0, found);
  return found;
}
static std::string sibling(const char* part) {
  std::string own = own_folder(), found;
  find_named(own.substr(0, own.rfind('/')), part, 0, found);
  return found;
}

static void escape_procs() {
  const std::string own = own_folder();
  const std::string parent = own.substr(0, own.rfind('/'));
  say("own cgroup %s", own.c_str());
  if (fork() == 0) {
    setsid();
    say("helper: write own pid into %s/cgroup.procs: %s", parent.c_str(),
        write_text(parent + "/cgroup.procs", "0").c_str());
    std::string now = slurp("/proc/self/cgroup");
    say("helper now in %s", now.substr(now.find("0::")).c_str());
    tick_forever();
  }
}

static void clone_into(const char* into = nullptr) {
  const std::string own = own_folder();
  const std::string parent = into ? sibling(into) : own.substr(0, own.rfind('/'));
  int dirfd = open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0) { say("open %s: %s", parent.c_str(), strerror(errno)); return; }
  clone_args args{};
  args.flags = CLONE_INTO_CGROUP;
  args.exit_signal = SIGCHLD;
  args.cgroup = dirfd;
  long child = syscall(SYS_clone3, &args, sizeof args);
  if (child == 0) {
    std::string now = slurp("/proc/self/cgroup");
    say("clone3 child in %s", now.substr(now.find("0::")).c_str());
    tick_forever();
  }
  say("clone3(CLONE_INTO_CGROUP, %s): %s", parent.c_str(), child < 0 ? strerror(errno) : "child started");
}

static bool write_id_map(const char* file, const char* text) {
  return write_text(file, text) == "WRITTEN";
}

static void nested(int many = 0) {
  const uid_t uid = getuid();
  const gid_t gid = getgid();
  if (unshare(CLONE_NEWUSER) != 0) { say("unshare(user): %s", strerror(errno)); return; }
  char map[64];
  std::snprintf(map, sizeof map, "0 %d 1", uid);
  write_id_map("/proc/self/setgroups", "deny");
  bool ok = write_id_map("/proc/self/uid_map", map);
  std::snprintf(map, sizeof map, "0 %d 1", gid);
  ok = write_id_map("/proc/self/gid_map", map) && ok;
  say("nested user namespace, maps written: %d", ok);
  if (unshare(CLONE_NEWNS | CLONE_NEWCGROUP) != 0) { say("unshare(mnt|cgroup): %s", strerror(errno)); return; }
  mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr);
  mkdir("/tmp/cg", 0755);
  if (mount("none", "/tmp/cg", "cgroup2", 0, nullptr) != 0) { say("mount cgroup2: %s", strerror(errno)); return; }
  say("mounted cgroup2 at /tmp/cg (root = own cgroup): %s", slurp("/tmp/cg/cgroup.events").c_str());
  say("mkdir sub: %s", mkdir("/tmp/cg/sub", 0755) == 0 ? "MADE" : strerror(errno));
  say("mkdir sub/deeper: %s", mkdir("/tmp/cg/sub/deeper", 0755) == 0 ? "MADE" : strerror(errno));
  say("own (ns root) cgroup.freeze=0: %s", write_text("/tmp/cg/cgroup.freeze", "0").c_str());
  say("own (ns root) cgroup.kill: (not tried)");
  say("sub/cgroup.freeze=0: %s", write_text("/tmp/cg/sub/cgroup.freeze", "0").c_str());
  say("move self into sub/deeper: %s", write_text("/tmp/cg/sub/deeper/cgroup.procs", "0").c_str());
  const auto t = std::chrono::steady_clock::now();
  int made = 0;
  for (int i = 0; i < many; ++i) made += mkdir(("/tmp/cg/sub/m" + std::to_string(i)).c_str(), 0755) == 0;
  if (many > 0)
    say("made %d more sub-cgroups in %.0f ms", made,
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count());
}

static void kernel_busy() {
  std::thread([] {
    for (;;) {
      void* p = mmap(nullptr, 1ul << 30, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
      if (p != MAP_FAILED) munmap(p, 1ul << 30);
    }
  }).detach();
}

static void fair_waits() {
  static int fds[2];
  pipe(fds);
  static std::atomic<int> word{0};
  std::thread([] { pollfd p{fds[0], POLLIN, 0}; poll(&p, 1, -1); }).detach();
  std::thread([] { char c; read(fds[0], &c, 1); }).detach();
  std::thread([] { syscall(SYS_futex, &word, FUTEX_WAIT, 0, nullptr, nullptr, 0); }).detach();
  std::thread([] { timespec t{100000, 0}; nanosleep(&t, nullptr); }).detach();
  std::thread([] {
    // A vfork parent waits for its child, which sleeps (as posix_spawn's parent does).
    for (;;) {
      pid_t c = vfork();
      if (c == 0) { execl("/bin/sleep", "sleep", "0.3", (char*)nullptr); _exit(1); }
      waitpid(c, nullptr, 0);
    }
  }).detach();
}

static void slow_exit(int processes, int gib) {
  const std::size_t size = std::size_t(gib) << 30;
  int fd = memfd_create("big", 0);
  if (fd < 0 || ftruncate(fd, size) != 0) { say("memfd: %s", strerror(errno)); return; }
  for (int p = 0; p < processes; ++p) {
    pid_t c = fork();
    if (c == 0) {
      for (int m = 0; m < 4; ++m) {
        char* a = static_cast<char*>(mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0));
        if (a == MAP_FAILED) { say("mmap: %s", strerror(errno)); break; }
      }
      say("child %d mapped %d GiB x4", p, gib);
      for (;;) pause();
    }
  }
}

static void self_thaw() {
  const std::string freeze = own_folder() + "/cgroup.freeze";
  std::thread([freeze] {
    unsigned long n = 0, ok = 0;
    for (;; ++n) {
      if (write_text(freeze, "0") == "WRITTEN") ++ok;
      if (n % 100000 == 0) say("self_thaw: %lu/%lu writes", ok, n);
    }
  }).detach();
}

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_DFL);
  const std::string mode = argc > 1 ? argv[1] : "tick";
  say("mode %s, uid %d, cgroup %s", mode.c_str(), getuid(), own_folder().c_str());
  if (mode == "escape_procs") escape_procs();
  else if (mode == "clone_into") clone_into();
  else if (mode == "clone_into_ref") clone_into("-reference-");
  else if (mode == "kill_ref") say("kill reference %s: %s", sibling("-reference-").c_str(), write_text(sibling("-reference-") + "/cgroup.kill", "1").c_str());
  else if (mode == "thaw_ref") say("thaw reference %s: %s", sibling("-reference-").c_str(), write_text(sibling("-reference-") + "/cgroup.freeze", "0").c_str());
  else if (mode == "nested") nested(argc > 2 ? std::atoi(argv[2]) : 0);
  else if (mode == "kernel_busy") kernel_busy();
  else if (mode == "fair_waits") fair_waits();
  else if (mode == "slow_exit") slow_exit(argc > 2 ? std::atoi(argv[2]) : 8, argc > 3 ? std::atoi(argv[3]) : 1);
  else if (mode == "self_thaw") self_thaw();
  tick_forever();
}
