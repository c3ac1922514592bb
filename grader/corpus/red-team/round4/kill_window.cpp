// Red team round 4: how long a killed sandboxed runner keeps its descriptors
// (on a GPU host: its /dev/nvidia* files, so its CUDA context and whatever it
// queued) after remote.cu's end_runner() has returned.
//
// end_runner(side, true) SIGKILLs the runner's pid and process group and
// waitpid()s that pid. Under the sandbox that pid is the outer bwrap; the
// student's runner is in another session (--new-session) inside the PID
// namespace, and dies only later, when the namespace's init gets its
// --die-with-parent SIGKILL and the kernel kills the namespace. compare_speed()
// times "the reference alone" right after kill_runner(student), so the
// student's process, and its GPU context, may still be alive for those samples.
// A process's descriptors are closed after its memory is released (do_exit:
// exit_mm before exit_files), so a runner with a large address space holds
// them longer.
//
// Build: g++ -O2 -std=c++17 kill_window.cpp -o /tmp/kill_window
// Run:   /tmp/kill_window MEGABYTES   (memory the stand-in runner touches)
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "runner") == 0) {
    const int fd = std::atoi(argv[2]);
    const std::size_t bytes = std::strtoull(argv[3], nullptr, 10) << 20;
    if (bytes > 0) {
      char* memory = static_cast<char*>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
      for (std::size_t i = 0; i < bytes; i += 4096) memory[i] = 1;
    }
    if (write(fd, "r", 1) != 1) return 1;
    for (;;) pause();
  }
  const std::string megabytes = argc > 1 ? argv[1] : "0";
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return 1;
  char self[4096] = {};
  if (readlink("/proc/self/exe", self, sizeof self - 1) <= 0) return 1;
  std::vector<std::string> words = {"bwrap", "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc",
                                    "--unshare-uts", "--unshare-user", "--uid", "65534", "--gid", "65534",
                                    "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                                    "--tmpfs", "/tmp", "--ro-bind", self, self, "--chdir", "/tmp",
                                    self, "runner", std::to_string(pipe_fds[1]), megabytes};
  std::vector<char*> argv_runner;
  for (std::string& w : words) argv_runner.push_back(w.data());
  argv_runner.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    close(pipe_fds[0]);
    setpgid(0, 0);
    execvp(argv_runner[0], argv_runner.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  char byte = 0;
  if (read(pipe_fds[0], &byte, 1) != 1) return 1;
  // remote.cu end_runner(side, true), in order.
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  kill(-pid, SIGKILL);
  const auto reaped = std::chrono::steady_clock::now();
  while (read(pipe_fds[0], &byte, 1) > 0) {
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - reaped).count();
  std::printf("runner touching %s MiB: its descriptors stayed open %.1f ms after end_runner() returned\n",
              megabytes.c_str(), ms);
  return 0;
}
