#include "memlab/grading/plugin.hpp"

#include <dlfcn.h>

#include <stdexcept>

namespace memlab::grading {

Plugin::Plugin(const std::string& path) : path_(path) {
  // RTLD_NOW: a function the lab asks for but the file lacks shows up here, as
  // "undefined symbol", not as a crash in the middle of a check.
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* why = dlerror();
    throw std::runtime_error("cannot load " + path + ": " + (why ? why : "unknown error"));
  }
}

const void* Plugin::symbol(const std::string& name) const {
  dlerror();
  const void* address = dlsym(handle_, name.c_str());
  if (address == nullptr) {
    throw std::runtime_error(path_ + " does not export " + name +
                             ": was it built for this lab?");
  }
  return address;
}

}  // namespace memlab::grading
