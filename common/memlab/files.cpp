#include "memlab/files.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace memlab {

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  const std::string temporary = path + ".partial";
  {
    std::ofstream file(temporary, std::ios::trunc);
    if (!file) throw std::runtime_error("cannot write " + temporary);
    write(file);
    file.flush();
    if (!file) throw std::runtime_error("writing " + temporary + " failed");
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    throw std::runtime_error("cannot rename " + temporary + " to " + path);
  }
}

std::string read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return file ? bytes.str() : std::string();
}

}  // namespace memlab
