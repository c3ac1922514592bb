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

std::string variant_library(const std::string& library, const std::string& variant) {
  const std::string suffix = ".so";
  if (variant.empty()) throw std::invalid_argument("a variant build needs a name");
  if (library.size() <= suffix.size() || library.compare(library.size() - suffix.size(), suffix.size(), suffix) != 0) {
    throw std::invalid_argument("a lab build's file name ends in .so, and " + library + " does not");
  }
  return library.substr(0, library.size() - suffix.size()) + "_" + variant + suffix;
}

}  // namespace memlab::grading
