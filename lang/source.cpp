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

[[noreturn]] void refuse(const std::string& path, std::string_view id, const std::string& why) {
  throw Error({file_diagnostic(path, id, why)});
}

}  // namespace

std::string read_source(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) refuse(path, diag::kFileUnreadable, std::string("cannot open file: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) refuse(path, diag::kFileUnreadable, "is a directory, not a source file");
  if (static_cast<std::uintmax_t>(st.st_size) > kMaxSourceBytes)
    refuse(path, diag::kFileTooLarge, "file is " + std::to_string(st.st_size) + " bytes; source files are limited to " +
                     std::to_string(kMaxSourceBytes) + " bytes");
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse(path, diag::kFileUnreadable, std::string("cannot open file: ") + std::strerror(errno));
  std::string text;
  // Read at most one byte past the limit, so a file that grows (or a FIFO) cannot run memory away; in
  // chunks, since zero-filling a buffer of the limit's size cost more than parsing a network.
  std::array<char, 64 * 1024> chunk;
  while (text.size() <= kMaxSourceBytes && in) {
    const std::size_t want = std::min(chunk.size(), kMaxSourceBytes + 1 - text.size());
    in.read(chunk.data(), static_cast<std::streamsize>(want));
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) refuse(path, diag::kFileUnreadable, "read error");
  if (text.size() > kMaxSourceBytes)
    refuse(path, diag::kFileTooLarge, "file is larger than the " + std::to_string(kMaxSourceBytes) + "-byte limit for source files");

  // Source text is ASCII outside comments and strings; a NUL byte means a binary file.
  if (const std::size_t nul = text.find('\0'); nul != std::string::npos) {
    Diagnostic d = SourceMap(path, text).diagnostic(nul, diag::kFileBinary, "this looks like a binary file (NUL byte), not source text");
    throw Error({std::move(d)});
  }
  return text;
}

}  // namespace ridge::lang
