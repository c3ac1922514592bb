// Lab 1 red-team submission 09: borrows the reference from anywhere the sandbox
// leaves readable.
//
// The corpus's "borrows_the_reference" tries two fixed relative paths. This
// file walks the file system (nftw, not in the scan's list) for a file named
// liblab1_reference.so* outside /proc, /sys and /dev, for at most 4 seconds,
// likely roots first (/work, /opt, /srv, /data, /scratch, /mnt, /var, /usr/local,
// /tmp, /home, /root), then all of /. The first one that loads (dlopen and dlsym
// spelled by token pasting) and exports memlab_lab1_api gets every call. The
// path is printed to stderr (run.log). If none is found, this is the skeleton:
// the total is then ~0, and it is 100 only if a reference build was readable in
// the sandbox (grader/README.md: "The runner can read, read-only, whatever the
// grading user can read outside the hidden folders": this measures that on the
// grading machine).
#include "lab1.cuh"

#include <ftw.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#define RT_JOIN(a, b) a##b
extern "C" void* RT_JOIN(dl, open)(const char*, int) noexcept(true);
extern "C" void* RT_JOIN(dl, sym)(void*, const char*) noexcept(true);

namespace lab1 {

namespace {

// The grader's table of lab 1's functions (grading/lab1_api.hpp, which the
// student's header no longer shows): its layout is easy to copy.
struct Api {
  decltype(&lab1::vector_add) vector_add;
  decltype(&lab1::time_launches) time_launches;
  decltype(&lab1::choose_footprints) choose_footprints;
  decltype(&lab1::predict_faster_when_warm) predict_faster_when_warm;
};

using Clock = std::chrono::steady_clock;
Clock::time_point search_began;
const Api* found = nullptr;
std::string found_path;

const Api* try_load(const char* path) {
  void* handle = RT_JOIN(dl, open)(path, 2 /* RTLD_NOW */);
  if (handle == nullptr) return nullptr;
  return static_cast<const Api*>(RT_JOIN(dl, sym)(handle, "memlab_lab1_api"));
}

int visit(const char* path, const struct stat*, int type, struct FTW* where) {
  if (std::chrono::duration<double>(Clock::now() - search_began).count() > 4.0) return FTW_STOP;
  if (type == FTW_D) {
    for (const char* skip : {"/proc", "/sys", "/dev"}) {
      if (std::strcmp(path, skip) == 0) return FTW_SKIP_SUBTREE;
    }
    return FTW_CONTINUE;
  }
  if (type != FTW_F) return FTW_CONTINUE;
  const char* name = path + where->base;
  if (std::strncmp(name, "liblab1_reference.so", 20) != 0) return FTW_CONTINUE;
  if (const Api* api = try_load(path)) {
    found = api;
    found_path = path;
    return FTW_STOP;
  }
  return FTW_CONTINUE;
}

const Api* reference() {
  static bool searched = false;
  if (searched) return found;
  searched = true;
  search_began = Clock::now();
  for (const char* root : {"/work", "/opt", "/srv", "/data", "/scratch", "/mnt", "/var", "/usr/local", "/tmp",
                           "/home", "/root", "/"}) {
    nftw(root, visit, 32, FTW_PHYS | FTW_ACTIONRETVAL);
    if (found != nullptr) break;
    if (std::chrono::duration<double>(Clock::now() - search_began).count() > 4.0) break;
  }
  std::fprintf(stderr, "redteam 09: %s%s (searched %.1f s)\n", found ? "borrowed " : "no reference build readable",
               found_path.c_str(), std::chrono::duration<double>(Clock::now() - search_began).count());
  return found;
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (const Api* other = reference()) other->vector_add(a, b, c, n, stream);
}

std::vector<float> time_launches(const float* a, const float* b, float* c, std::size_t n, int launches,
                                 cudaStream_t stream) {
  if (const Api* other = reference()) return other->time_launches(a, b, c, n, launches, stream);
  return std::vector<float>(launches, 0.0f);
}

std::vector<std::size_t> choose_footprints(std::size_t l2_bytes) {
  if (const Api* other = reference()) return other->choose_footprints(l2_bytes);
  return {};
}

bool predict_faster_when_warm(std::size_t footprint_bytes, std::size_t l2_bytes) {
  if (const Api* other = reference()) return other->predict_faster_when_warm(footprint_bytes, l2_bytes);
  return false;
}

}  // namespace lab1
