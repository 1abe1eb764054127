// Reading source files: the one place that decides what is acceptable as `.net`/`.hw` text.
#include "lang/parse.hpp"
#include "lang/source_map.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace ridge::lang {
namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  Diagnostic d;
  d.where.file = path;
  d.message = why;
  throw Error({std::move(d)});
}

}  // namespace

std::string read_source(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) refuse(path, std::string("cannot open file: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) refuse(path, "is a directory, not a source file");
  if (static_cast<std::uintmax_t>(st.st_size) > kMaxSourceBytes)
    refuse(path, "file is " + std::to_string(st.st_size) + " bytes; source files are limited to " +
                     std::to_string(kMaxSourceBytes) + " bytes");
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse(path, std::string("cannot open file: ") + std::strerror(errno));
  std::string text;
  // Read at most one byte past the limit, so a file that grows (or a FIFO) cannot run memory away; in
  // chunks, since zero-filling a buffer of the limit's size cost more than parsing a network.
  std::array<char, 64 * 1024> chunk;
  while (text.size() <= kMaxSourceBytes && in) {
    const std::size_t want = std::min(chunk.size(), kMaxSourceBytes + 1 - text.size());
    in.read(chunk.data(), static_cast<std::streamsize>(want));
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) refuse(path, "read error");
  if (text.size() > kMaxSourceBytes)
    refuse(path, "file is larger than the " + std::to_string(kMaxSourceBytes) + "-byte limit for source files");

  // Source text is ASCII outside comments and strings; a NUL byte means a binary file.
  if (const std::size_t nul = text.find('\0'); nul != std::string::npos) {
    Diagnostic d = SourceMap(path, text).diagnostic(nul, "this looks like a binary file (NUL byte), not source text");
    throw Error({std::move(d)});
  }
  return text;
}

}  // namespace ridge::lang
