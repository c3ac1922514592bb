// Code-review checks of Cgroup (cgroup.cpp), as the grader would use it.
//   g++ -std=c++17 -O1 -I common -o /tmp/r5/review review.cpp common/memlab/grading/cgroup.cpp \
//       common/memlab/grading/freezer.cpp -lpthread
//   review collision   a folder memlab-<pid>-student-1 already there (left by a grader of the
//                      same pid, e.g. one whose student made sub-cgroups): Cgroup("student-1")
//   review enter       why_unusable(), then a Cgroup and a forked child's enter(), as start_runner does
//                      (run it from inside a threaded cgroup to see a grader there)
//   review stale DIR   only why_unusable() (and so remove_stale()); says whether DIR survived
//   review crash       (rerun) makes reference-1 and student-2 as main.cpp's first start_runner calls do,
//                      then dies by SIGKILL (grade.py's time limit kills a lab grader so)
//   review start       (rerun) main.cpp's first two start_runner calls: prints the exit status main.cpp
//                      returns if one throws (3 kGpuFailed for the reference, 5 kStudentUnusable)
// Run crash then start in fresh PID namespaces (unshare -pf --mount-proc): both get the same pid.
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "memlab/grading/cgroup.hpp"
#include "memlab/grading/freezer.hpp"

using memlab::grading::Cgroup;
using memlab::grading::Freezer;

static std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  std::string own = slurp("/proc/self/cgroup");
  std::printf("pid %d, %s", getpid(), own.substr(own.find("0::")).c_str());
  if (what == "stale") {
    std::printf("why_unusable: '%s'\n", Cgroup::why_unusable().c_str());
    struct stat st;
    std::printf("%s: %s\n", argv[2], stat(argv[2], &st) == 0 ? "still there" : "REMOVED");
    return 0;
  }
  std::printf("why_unusable: '%s'\n", Cgroup::why_unusable().c_str());
  if (what == "crash") {
    Cgroup reference("reference-1"), student("student-2");
    std::printf("made %s and %s; SIGKILL\n", reference.folder().c_str(), student.folder().c_str());
    std::fflush(stdout);
    kill(getpid(), SIGKILL);
  }
  if (what == "start") {
    for (const char* name : {"reference-1", "student-2"}) {
      try {
        Cgroup cgroup(name);
        std::printf("start_runner(%s): cgroup %s\n", name, cgroup.folder().c_str());
      } catch (const std::exception& error) {
        std::printf("start_runner(%s) threw: %s\n  -> main.cpp returns %d (%s)\n", name, error.what(),
                    name[0] == 'r' ? 3 : 5, name[0] == 'r' ? "kGpuFailed" : "kStudentUnusable");
        return 0;
      }
    }
    return 0;
  }
  if (what == "collision") {
    // What the grader's first runner would be called, made beforehand.
    Cgroup probe("x");
    const std::string parent = probe.folder().substr(0, probe.folder().rfind('/'));
    const std::string name = parent + "/memlab-" + std::to_string(getpid()) + "-student-1";
    std::printf("pre-made %s: %s\n", name.c_str(), mkdir(name.c_str(), 0755) == 0 ? "ok" : strerror(errno));
    Cgroup cgroup("student-1");
    std::printf("Cgroup(\"student-1\").usable() = %d (the runner would be held by signals; the report still says "
                "'the kernel')\n",
                cgroup.usable());
    rmdir(name.c_str());
    return 0;
  }
  if (what == "enter") {
    Cgroup cgroup("student-1");
    std::printf("Cgroup usable: %d, folder %s, type %s", cgroup.usable(), cgroup.folder().c_str(),
                slurp(cgroup.folder() + "/cgroup.type").c_str());
    const pid_t pid = fork();
    if (pid == 0) {
      if (cgroup.usable() && !cgroup.enter()) {
        std::fprintf(stdout, "child: cannot move the runner into its cgroup: %s (runner exits 127)\n", strerror(errno));
        std::fflush(stdout);
        _exit(127);
      }
      _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    std::printf("child exit status %d\n", WEXITSTATUS(status));
    return 0;
  }
  return 2;
}
